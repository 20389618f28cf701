import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { testCli } from '../test/support/test-io.js';

describe('followup (the command line)', () => {
  const cli = testCli();

  it('prints its help with --help, and exits 2 with it when no command is given', async () => {
    const help = await cli.run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: followup <command> \[options\]/);
    expect((await cli.run([])).code).toBe(2);
  });

  it("prints each command's help with --help, and runs nothing", async () => {
    for (const name of ['trigger', 'login', 'logout']) {
      const run = await cli.run([name, '--help']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(new RegExp(`^Usage: followup ${name}`));
    }
  });

  it('exits 2 with a clear message for an unknown command or option, or a missing value', async () => {
    expect(await cli.run(['lisen'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^followup: unknown command "lisen"\./),
    });
    expect(await cli.run(['trigger', '--lsit'])).toMatchObject({
      code: 2,
      stderr:
        "followup trigger: Unknown option '--lsit'.\nRun followup trigger --help for its options.\n",
    });
    expect(await cli.run(['login', '--base-url'])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Option '--base-url <value>' argument missing/),
    });
    expect(await cli.run(['logout', '--json=yes'])).toMatchObject({ code: 2 });
  });

  it('never echoes a value it refuses: a token in the wrong place stays off the terminal', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.constantFrom('trigger', 'login', 'logout', '--token', '--json', '--list', '-x'),
        ),
        fc.stringMatching(/^hns_[A-Za-z0-9]{10,20}$/),
        async (words, secret) => {
          const run = await cli.run([...words, secret, `--tokne=${secret}`], {
            env: { FOLLOWUP_BASE_URL: 'http://127.0.0.1:9' },
          });
          expect([0, 1, 2]).toContain(run.code);
          expect(run.stdout + run.stderr).not.toContain(secret);
        },
      ),
      { numRuns: 60 },
    );
  });
});
