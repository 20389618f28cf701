#!/usr/bin/env node
// The root's `prepare` script, which npm runs after `npm ci` and `npm install`: it points git at
// the repository's own hooks (.githooks/, the commit-msg check) by setting core.hooksPath, so
// that a fresh clone checks commit messages without anything fetched. It changes nothing, and
// never fails the install, where that would be wrong: in CI (which makes no commit), outside a
// git checkout (an unpacked tarball) or when the checkout is another project's that holds this
// one, and where the person has hooks of their own (another core.hooksPath, or hooks in
// .git/hooks, which core.hooksPath would silently turn off); then it says how to add ours.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's hooks folder, as core.hooksPath names it (relative to the work tree). */
export const HOOKS_PATH = '.githooks';

/** Runs git in `cwd`; its trimmed output, or undefined when it fails or is not installed. */
function git(cwd, args) {
  try {
    return execFileSync('git', args, {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Sets core.hooksPath to {@link HOOKS_PATH} in the git checkout whose top folder is `root`,
 * unless that would be wrong (see the top of this file).
 *
 * @param {object} options
 * @param {string} options.root the repository's root folder
 * @param {NodeJS.ProcessEnv} options.env
 * @returns {{ installed: boolean, reason: string }} what it did, in a sentence
 */
export function installGitHooks({ root, env }) {
  if (env.CI) return { installed: false, reason: 'CI makes no commits: no git hooks installed' };
  const top = git(root, ['rev-parse', '--show-toplevel']);
  if (top === undefined || realpathSync(top) !== realpathSync(root)) {
    return { installed: false, reason: 'not a git checkout of this repository: no git hooks' };
  }
  const current = git(root, ['config', '--get', 'core.hooksPath']);
  if (current === HOOKS_PATH) return { installed: true, reason: 'git hooks already installed' };
  const advice = `to check commit messages, call ${HOOKS_PATH}/commit-msg from your commit-msg hook`;
  if (current !== undefined) {
    return { installed: false, reason: `core.hooksPath is ${current}; ${advice}` };
  }
  const ownHooks = resolve(root, git(root, ['rev-parse', '--git-path', 'hooks']) ?? '.git/hooks');
  const own = existsSync(ownHooks)
    ? readdirSync(ownHooks).filter((name) => !name.endsWith('.sample'))
    : [];
  if (own.length > 0) {
    return { installed: false, reason: `${ownHooks} has hooks (${own.join(', ')}); ${advice}` };
  }
  if (git(root, ['config', 'core.hooksPath', HOOKS_PATH]) === undefined) {
    return { installed: false, reason: 'git config failed: no git hooks installed' };
  }
  return { installed: true, reason: `git hooks installed: core.hooksPath is ${HOOKS_PATH}` };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  try {
    console.log(`install-git-hooks: ${installGitHooks({ root, env: process.env }).reason}`);
  } catch (error) {
    // A hook is a convenience: an install never fails for it.
    console.warn(`install-git-hooks: no git hooks installed (${error.message})`);
  }
}
