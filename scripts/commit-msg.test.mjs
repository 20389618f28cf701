import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { commitMessageProblems, messageLines, SUBJECT_LIMIT } from './commit-msg.mjs';

const root = new URL('..', import.meta.url).pathname;

/** One line of any code points: no line break, not starting with git's comment character. */
const line = (options) =>
  fc
    .string({ unit: 'binary', ...options })
    .map((text) => text.replace(/[\r\n]/g, ' '))
    .filter((text) => !text.startsWith('#'));
/** A line with something in it after trailing spaces are cut. */
const filledLine = (options) => line(options).filter((text) => text.trim() !== '');
/** A subject git would keep: filled, and not one of the exempt kinds. */
const subject = (options) =>
  filledLine(options).filter((text) => !/^(Merge |fixup! |squash! |amend! )/.test(text));

describe('commitMessageProblems', () => {
  it('accepts a subject of at most 72 characters, a blank line and a body', () => {
    expect(
      commitMessageProblems('lockfile: builds carry os and cpu\n\nnpm ci installed them all.\n'),
    ).toEqual([]);
    fc.assert(
      fc.property(
        subject({ minLength: 1, maxLength: SUBJECT_LIMIT }),
        fc.array(line(), { maxLength: 4 }),
        filledLine({ minLength: 1 }),
        (head, lines, why) => {
          expect(commitMessageProblems([head, '', ...lines, why].join('\n'))).toEqual([]);
        },
      ),
    );
  });

  it('counts characters, not bytes or UTF-16 units', () => {
    const emoji = '🦊'.repeat(SUBJECT_LIMIT);
    expect(commitMessageProblems(`${emoji}\n\nWhy.`)).toEqual([]);
    expect(commitMessageProblems(`${emoji}🦊\n\nWhy.`)).toEqual([
      'The subject has 73 characters; at most 72: say what changed, and put the rest in the body.',
    ]);
  });

  it('refuses a subject over 72 characters, naming its length', () => {
    fc.assert(
      fc.property(
        subject({ minLength: SUBJECT_LIMIT + 1, maxLength: 200 }).filter(
          (text) => [...text.trimEnd()].length > SUBJECT_LIMIT,
        ),
        (head) => {
          const [problem, ...others] = commitMessageProblems(`${head}\n\nWhy.`);
          expect(others).toEqual([]);
          expect(problem).toContain(`has ${[...head.trimEnd()].length} characters; at most 72`);
        },
      ),
    );
  });

  it('refuses a message without a body', () => {
    fc.assert(
      fc.property(
        subject({ minLength: 1, maxLength: SUBJECT_LIMIT }),
        fc.nat(3),
        (head, blanks) => {
          expect(commitMessageProblems(`${head}${'\n'.repeat(blanks)}`)).toEqual([
            'The message has no body: after a blank line, say why the change is made.',
          ]);
        },
      ),
    );
  });

  it('refuses a body that does not start after a blank line', () => {
    expect(commitMessageProblems('server: a fix\nbecause it broke\n')).toEqual([
      'A blank line must follow the subject: git takes the lines before it as one subject.',
    ]);
  });

  it('reads the message as git records it: no comments, nothing below the scissors', () => {
    const edited = [
      '',
      'docs: say how to install',
      '# Please enter the commit message for your changes.',
      '',
      '# On branch wt-g',
      'The README said nothing of it.   ',
      '',
      '# ------------------------ >8 ------------------------',
      'diff --git a/README.md b/README.md',
    ].join('\n');
    expect(messageLines(edited)).toEqual([
      'docs: say how to install',
      '',
      'The README said nothing of it.',
    ]);
    expect(commitMessageProblems(edited)).toEqual([]);
    expect(
      commitMessageProblems('; a comment\nfix\n\n; another\nWhy.', { commentChar: ';' }),
    ).toEqual([]);
    // A body made only of comments is no body.
    expect(commitMessageProblems('fix\n\n# why, one day\n')).toHaveLength(1);
  });

  it('leaves to git what git writes or folds away, and an empty message', () => {
    expect(commitMessageProblems("Merge branch 'wt-g' into main\n")).toEqual([]);
    expect(commitMessageProblems(`fixup! ${'x'.repeat(80)}\n`)).toEqual([]);
    expect(commitMessageProblems('# only comments\n\n')).toEqual([]);
    expect(commitMessageProblems('Merge the two caches into one\n')).toHaveLength(1);
  });
});

describe('the commit-msg hook', () => {
  const scratches = [];
  afterEach(() => {
    for (const scratch of scratches.splice(0)) rmSync(scratch, { recursive: true, force: true });
  });

  /** A new repository with this one's hook and check, and git pointed at them. */
  function repositoryWithHook() {
    const scratch = mkdtempSync(join(tmpdir(), 'followup-commit-msg-'));
    scratches.push(scratch);
    execFileSync('git', ['init', '-q'], { cwd: scratch });
    cpSync(join(root, '.githooks'), join(scratch, '.githooks'), { recursive: true });
    mkdirSync(join(scratch, 'scripts'));
    cpSync(join(root, 'scripts', 'commit-msg.mjs'), join(scratch, 'scripts', 'commit-msg.mjs'));
    execFileSync('git', ['config', 'core.hooksPath', '.githooks'], { cwd: scratch });
    return scratch;
  }

  /** `git commit --allow-empty` with `message`, with the Node running this test on PATH. */
  function commit(scratch, message) {
    const env = {
      ...process.env,
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.com',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.com',
    };
    return spawnSync('git', ['commit', '-q', '--allow-empty', '-m', message], {
      cwd: scratch,
      env,
      encoding: 'utf8',
    });
  }

  const commits = (scratch) =>
    spawnSync('git', ['rev-list', '--count', '--all'], {
      cwd: scratch,
      encoding: 'utf8',
    }).stdout.trim();

  it('stops a commit whose message breaks the rules, and says why', () => {
    const scratch = repositoryWithHook();
    const refused = commit(scratch, 'a subject and nothing else');
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain('The message has no body');
    expect(commits(scratch)).toBe('0');
  });

  it('lets a commit with a short subject and a body through', () => {
    const scratch = repositoryWithHook();
    const made = commit(scratch, 'scripts: a commit-msg check\n\nCONTRIBUTING.md asks for it.');
    expect(made.stderr).toBe('');
    expect(made.status).toBe(0);
    expect(commits(scratch)).toBe('1');
  });
});
