#!/usr/bin/env node
// The commit-msg check (CONTRIBUTING.md, "Commit messages"): a subject of at most 72 characters,
// which is what `git log --oneline` and every review tool show, then a blank line and a body that
// says why. Git runs it through .githooks/commit-msg, which `npm ci` installs
// (scripts/install-git-hooks.mjs), with the file holding the message as it was written: comment
// lines and anything below the scissors line of `git commit -v` are still in it, and are not
// part of the message.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The most characters a subject may have. */
export const SUBJECT_LIMIT = 72;

// Messages that git writes, and commits that do not stay in the history as they are: a merge's
// own message, and the fixups `git rebase --autosquash` folds into the commit they name.
const EXEMPT =
  /^(Merge (branch|branches|remote-tracking branch|tag|commit|pull request) |fixup! |squash! |amend! )/;

/**
 * The message git will record from the text of a commit message file: without comment lines,
 * without what follows the scissors line, without trailing spaces and the blank lines around it.
 *
 * @param {string} text
 * @param {{ commentChar?: string }} [options] git's `core.commentChar`, `#` by default
 * @returns {string[]} its lines
 */
export function messageLines(text, { commentChar = '#' } = {}) {
  const lines = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === `${commentChar} ------------------------ >8 ------------------------`) break;
    if (!line.startsWith(commentChar)) lines.push(line.trimEnd());
  }
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  return lines;
}

/**
 * What is wrong with a commit message, as sentences for the person committing; none when it has
 * a subject of at most 72 characters, a blank line, then a body. An empty message is left to git,
 * which refuses it itself.
 *
 * @param {string} text the commit message file's text
 * @param {{ commentChar?: string }} [options]
 * @returns {string[]}
 */
export function commitMessageProblems(text, options) {
  const [subject, separator, ...body] = messageLines(text, options);
  if (subject === undefined || EXEMPT.test(subject)) return [];
  const problems = [];
  const length = [...subject].length;
  if (length > SUBJECT_LIMIT) {
    problems.push(
      `The subject has ${length} characters; at most ${SUBJECT_LIMIT}: say what changed, and put the rest in the body.`,
    );
  }
  if (separator !== undefined && separator !== '') {
    problems.push(
      'A blank line must follow the subject: git takes the lines before it as one subject.',
    );
  }
  if (![separator ?? '', ...body].some((line) => line.trim() !== '')) {
    problems.push('The message has no body: after a blank line, say why the change is made.');
  }
  return problems;
}

/** Git's comment character in the repository where the hook runs, `#` unless configured. */
function configuredCommentChar() {
  try {
    const value = execFileSync('git', ['config', '--get', 'core.commentChar'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return value && value !== 'auto' ? value : '#';
  } catch {
    return '#';
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = process.argv[2];
  const problems = commitMessageProblems(readFileSync(file, 'utf8'), {
    commentChar: configuredCommentChar(),
  });
  if (problems.length > 0) {
    process.stderr.write(
      `commit-msg: the commit was not made (CONTRIBUTING.md, "Commit messages"):\n${problems
        .map((problem) => `- ${problem}\n`)
        .join('')}Your message is kept in ${file}.\n`,
    );
    process.exit(1);
  }
}
