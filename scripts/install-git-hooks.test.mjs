import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOOKS_PATH, installGitHooks } from './install-git-hooks.mjs';

const scratches = [];
afterEach(() => {
  for (const scratch of scratches.splice(0)) rmSync(scratch, { recursive: true, force: true });
});

/** A new scratch folder; a git repository when `git` is set. */
function scratchFolder({ git }) {
  const scratch = mkdtempSync(join(tmpdir(), 'followup-hooks-'));
  scratches.push(scratch);
  if (git) execFileSync('git', ['init', '-q'], { cwd: scratch });
  return scratch;
}

/** The repository's core.hooksPath, or undefined when it is not set. */
function hooksPathOf(folder) {
  const read = spawnSync('git', ['config', '--get', 'core.hooksPath'], {
    cwd: folder,
    encoding: 'utf8',
  });
  return read.status === 0 ? read.stdout.trim() : undefined;
}

describe('installGitHooks', () => {
  it('points git at the repository hooks in a fresh clone', () => {
    const clone = scratchFolder({ git: true });
    expect(installGitHooks({ root: clone, env: {} })).toEqual({
      installed: true,
      reason: `git hooks installed: core.hooksPath is ${HOOKS_PATH}`,
    });
    expect(hooksPathOf(clone)).toBe(HOOKS_PATH);
    // npm install again: nothing more to do.
    expect(installGitHooks({ root: clone, env: {} }).reason).toBe('git hooks already installed');
  });

  it('changes nothing in CI', () => {
    const clone = scratchFolder({ git: true });
    expect(installGitHooks({ root: clone, env: { CI: 'true' } }).installed).toBe(false);
    expect(hooksPathOf(clone)).toBeUndefined();
  });

  it('changes nothing, and does not fail, outside a git checkout', () => {
    const unpacked = scratchFolder({ git: false });
    expect(installGitHooks({ root: unpacked, env: {} })).toEqual({
      installed: false,
      reason: 'not a git checkout of this repository: no git hooks',
    });
  });

  it('leaves alone the repository of another project that holds this one', () => {
    const outer = scratchFolder({ git: true });
    const vendored = join(outer, 'vendor', 'followup');
    mkdirSync(vendored, { recursive: true });
    expect(installGitHooks({ root: vendored, env: {} }).installed).toBe(false);
    expect(hooksPathOf(outer)).toBeUndefined();
  });

  it("keeps the person's own hooks, and says how to add ours", () => {
    const withHooksPath = scratchFolder({ git: true });
    execFileSync('git', ['config', 'core.hooksPath', '.husky'], { cwd: withHooksPath });
    expect(installGitHooks({ root: withHooksPath, env: {} })).toEqual({
      installed: false,
      reason:
        'core.hooksPath is .husky; to check commit messages, call .githooks/commit-msg from your commit-msg hook',
    });
    expect(hooksPathOf(withHooksPath)).toBe('.husky');

    const withHook = scratchFolder({ git: true });
    writeFileSync(join(withHook, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n');
    expect(installGitHooks({ root: withHook, env: {} }).reason).toMatch(/has hooks \(pre-commit\)/);
    expect(hooksPathOf(withHook)).toBeUndefined();
  });
});
