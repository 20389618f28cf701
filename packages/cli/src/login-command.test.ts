import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '@followup/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestCli, testCli } from '../test/support/test-io.js';

let server: TestServer;
let token: string;
const clis: TestCli[] = [];
beforeAll(async () => {
  server = await startTestServer();
  token = await server.issueToken('MANAGER');
});
afterAll(async () => {
  for (const cli of clis) cli.remove();
  await server?.close();
});
function newCli(): TestCli {
  const cli = testCli();
  clis.push(cli);
  return cli;
}

describe('followup login and logout', () => {
  it('checks the token, stores it 0600, and the other commands use it; never prints it', async () => {
    const cli = newCli();
    const login = await cli.run(['login', '--base-url', server.baseUrl, '--token', token]);
    expect(login).toMatchObject({ code: 0, stderr: '' });
    expect(login.stdout).toMatch(
      /^Logged in to http:\/\/127\.0\.0\.1:\d+ as test-manager \(MANAGER, sa_/,
    );
    expect(login.stdout).not.toContain(token);
    const file = join(cli.configHome, 'followup', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ baseUrl: server.baseUrl, token });

    const trigger = await cli.run(['trigger', 'contact.created', '--json']);
    expect(trigger.code).toBe(0);
    const { ids } = JSON.parse(trigger.stdout);
    expect((await server.client.contacts.get(ids.contact)).firstName).toBe('Trigger');

    const logout = await cli.run(['logout']);
    expect(logout).toEqual({ code: 0, stdout: `Logged out: removed ${file}.\n`, stderr: '' });
    const after = await cli.run(['trigger', 'contact.created']);
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(
      /No server: pass --base-url, set FOLLOWUP_BASE_URL, or run followup login/,
    );
  });

  it('reads the token from standard input, which keeps it out of the shell history', async () => {
    const cli = newCli();
    const login = await cli.run(['login', '--base-url', server.baseUrl, '--json'], {
      readStdin: async () => `${token}\n`,
    });
    expect(login.code).toBe(0);
    expect(JSON.parse(login.stdout)).toMatchObject({
      baseUrl: server.baseUrl,
      account: { name: 'test-manager', role: 'MANAGER' },
    });
  });

  it('stores nothing for a token the server refuses, and exits 1 without printing it', async () => {
    const cli = newCli();
    const wrong = `${token.slice(0, -4)}AAAA`;
    const login = await cli.run(['login', '--base-url', server.baseUrl, '--token', wrong]);
    expect(login.code).toBe(1);
    expect(login.stderr).toMatch(/^followup login: /);
    expect(login.stdout + login.stderr).not.toContain(wrong);
    expect(() => statSync(join(cli.configHome, 'followup', 'config.json'))).toThrow();
  });

  it('is a usage error without a server or a token', async () => {
    const cli = newCli();
    expect(await cli.run(['login', '--token', token])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/Which server\? Pass --base-url/),
    });
    const noToken = await cli.run(['login', '--base-url', server.baseUrl]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toMatch(/No token: pass --token, set FOLLOWUP_TOKEN, or pipe it/);
  });

  it('logout says when nobody was logged in', async () => {
    const cli = newCli();
    expect((await cli.run(['logout', '--json'])).stdout).toBe(
      `${JSON.stringify({ file: join(cli.configHome, 'followup', 'config.json'), removed: false })}\n`,
    );
  });
});
