import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from './cli-io.js';
import { writeStoredCredentials } from './config-file.js';
import { resolveCredentials } from './credentials.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function io(env: Record<string, string>): CliIo {
  const configHome = mkdtempSync(join(tmpdir(), 'followup-credentials-'));
  folders.push(configHome);
  const sink = { write: () => true };
  return { stdout: sink, stderr: sink, env: { XDG_CONFIG_HOME: configHome, ...env } };
}

const stored = { baseUrl: 'http://127.0.0.1:3000', token: 'hns_sa_stored.s' };

describe('resolveCredentials', () => {
  it('takes the command line first, then the environment, then what login stored', () => {
    const cli = io({ FOLLOWUP_BASE_URL: 'http://127.0.0.1:4000', FOLLOWUP_TOKEN: 'hns_sa_env.s' });
    writeStoredCredentials(cli.env, stored);
    expect(
      resolveCredentials({ 'base-url': 'http://127.0.0.1:5000', token: 'hns_sa_flag.s' }, cli),
    ).toEqual({ baseUrl: 'http://127.0.0.1:5000', token: 'hns_sa_flag.s' });
    expect(resolveCredentials({}, cli)).toEqual({
      baseUrl: 'http://127.0.0.1:4000',
      token: 'hns_sa_env.s',
    });
    const loggedIn = io({});
    writeStoredCredentials(loggedIn.env, stored);
    expect(resolveCredentials({}, loggedIn)).toEqual(stored);
  });

  it('never sends the stored token to another server than the stored one', () => {
    const cli = io({});
    writeStoredCredentials(cli.env, stored);
    expect(() => resolveCredentials({ 'base-url': 'https://elsewhere.example' }, cli)).toThrow(
      /No token for https:\/\/elsewhere\.example/,
    );
    // The same server written another way is the same server.
    expect(resolveCredentials({ 'base-url': 'http://127.0.0.1:3000/' }, cli).token).toBe(
      stored.token,
    );
  });

  it('is a usage error, naming every source, when a credential is missing', () => {
    expect(() => resolveCredentials({}, io({}))).toThrow(
      expect.objectContaining({ code: 'usage', message: expect.stringMatching(/--base-url/) }),
    );
    expect(() => resolveCredentials({ 'base-url': 'http://127.0.0.1:1' }, io({}))).toThrow(
      expect.objectContaining({ code: 'usage', message: expect.stringMatching(/FOLLOWUP_TOKEN/) }),
    );
  });
});
