import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeBuild, serverCommandFile } from './start.mjs';

const root = new URL('..', import.meta.url).pathname;

/** The end of turbo's output for a build of `total` tasks, `cached` of them from its cache. */
const turboSaid = (cached, total) =>
  `\n Tasks:    ${total} successful, ${total} total\nCached:    ${cached} cached, ${total} total\n  Time:    83ms\n`;

describe('describeBuild', () => {
  it('says the build was reused when every package came from the cache', () => {
    expect(describeBuild({ output: turboSaid(3, 3), seconds: 0.64 })).toBe(
      'start: the build is current (3 of 3 packages reused), checked in 0.6 s',
    );
  });

  it('says how many packages were built when some were not current', () => {
    expect(describeBuild({ output: turboSaid(1, 3), seconds: 21.27 })).toBe(
      'start: built 2 of 3 packages (1 reused) in 21.3 s',
    );
    expect(describeBuild({ output: turboSaid(0, 3), seconds: 40 })).toBe(
      'start: built 3 of 3 packages (0 reused) in 40.0 s',
    );
  });

  it('still reports the time when turbo words its summary otherwise', () => {
    expect(describeBuild({ output: 'done', seconds: 1.25 })).toBe('start: build checked in 1.3 s');
  });
});

describe('the followup-server command', () => {
  const scratches = [];
  afterEach(() => {
    for (const scratch of scratches.splice(0)) rmSync(scratch, { recursive: true, force: true });
  });

  /** The command's file copied into a scratch package, with `cli` as its built CLI if given. */
  function scratchPackage(cli) {
    const scratch = mkdtempSync(join(tmpdir(), 'followup-command-'));
    scratches.push(scratch);
    mkdirSync(join(scratch, 'bin'));
    const command = join(scratch, 'bin', 'followup-server.js');
    copyFileSync(serverCommandFile(root), command);
    writeFileSync(join(scratch, 'package.json'), '{"type":"module"}\n');
    if (cli) {
      mkdirSync(join(scratch, 'dist'));
      writeFileSync(join(scratch, 'dist', 'cli.js'), cli);
    }
    return command;
  }

  it('is a file of the repository, so that npm ci links it before anything is built', () => {
    const file = relative(root, serverCommandFile(root));
    // git ls-files names only tracked files: dist/ is built, ignored, absent from a fresh clone.
    const tracked = execFileSync('git', ['ls-files', '--', file], { cwd: root, encoding: 'utf8' });
    expect(tracked.trim()).toBe(file);
  });

  it('is the file package-lock.json records, which is the one npm ci links', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    const recorded = lock.packages['packages/server'].bin['followup-server'];
    expect(join(root, 'packages', 'server', recorded)).toBe(serverCommandFile(root));
  });

  it('runs the built CLI in its own process, with the arguments it was given', () => {
    const command = scratchPackage(
      'console.log(JSON.stringify({ args: process.argv.slice(2), pid: process.pid }));\n',
    );
    const run = spawnSync(process.execPath, [command, 'users', 'list', '--json'], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ args: ['users', 'list', '--json'], pid: run.pid });
  });

  it('says how to build when the server is not built yet', () => {
    const run = spawnSync(process.execPath, [scratchPackage(undefined), '--help'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/not built yet; run `npm run build` \(or `npm start`\)/);
  });
});
