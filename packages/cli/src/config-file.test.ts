import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { FollowUpCliError } from './cli-error.js';
import {
  configDirectory,
  parseStoredCredentials,
  readStoredCredentials,
  removeStoredCredentials,
  writeStoredCredentials,
} from './config-file.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
function scratch(): string {
  const folder = mkdtempSync(join(tmpdir(), 'followup-config-'));
  folders.push(folder);
  return folder;
}

describe('configDirectory', () => {
  it('is $XDG_CONFIG_HOME/followup, else ~/.config/followup', () => {
    expect(configDirectory({ XDG_CONFIG_HOME: '/x/config', HOME: '/home/ada' })).toBe(
      '/x/config/followup',
    );
    expect(configDirectory({ HOME: '/home/ada' })).toBe('/home/ada/.config/followup');
  });

  it('ignores a relative XDG_CONFIG_HOME, as the XDG rules say', () => {
    expect(configDirectory({ XDG_CONFIG_HOME: 'config', HOME: '/home/ada' })).toBe(
      '/home/ada/.config/followup',
    );
  });

  it('refuses to guess without either', () => {
    expect(() => configDirectory({})).toThrow(/XDG_CONFIG_HOME nor HOME/);
  });
});

describe('stored credentials', () => {
  it('are written readable by the user only, and read back', () => {
    const env = { XDG_CONFIG_HOME: scratch() };
    const file = writeStoredCredentials(env, {
      baseUrl: 'http://127.0.0.1:3000',
      token: 'hns_sa_1.secret',
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(readStoredCredentials(env)).toEqual({
      baseUrl: 'http://127.0.0.1:3000',
      token: 'hns_sa_1.secret',
    });
  });

  it('narrow a file another program left readable to 0600 when written again', () => {
    const env = { XDG_CONFIG_HOME: scratch() };
    const file = writeStoredCredentials(env, { baseUrl: 'http://a', token: 't1' });
    writeFileSync(file, readFileSync(file), { mode: 0o644 });
    writeStoredCredentials(env, { baseUrl: 'http://a', token: 't2' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('are gone after removal, and removing twice says nothing was there', () => {
    const env = { XDG_CONFIG_HOME: scratch() };
    writeStoredCredentials(env, { baseUrl: 'http://a', token: 't' });
    expect(removeStoredCredentials(env).removed).toBe(true);
    expect(readStoredCredentials(env)).toBeUndefined();
    expect(removeStoredCredentials(env).removed).toBe(false);
  });
});

describe('parseStoredCredentials', () => {
  it('reads what writeStoredCredentials writes, for any values', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.string({ minLength: 1, maxLength: 200 }),
        (baseUrl, token) => {
          const text = `${JSON.stringify({ baseUrl, token }, null, 2)}\n`;
          expect(parseStoredCredentials(text, 'config.json')).toEqual({ baseUrl, token });
        },
      ),
    );
  });

  it('refuses any other text with a FollowUpCliError that never repeats the file', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc
            .record({ baseUrl: fc.anything(), token: fc.anything() })
            .map((value) => JSON.stringify(value)),
        ),
        (text) => {
          let parsed: unknown;
          try {
            parsed = parseStoredCredentials(text, '/x/config.json');
          } catch (error) {
            expect(FollowUpCliError.isInstance(error)).toBe(true);
            const message = (error as Error).message;
            expect(message).toMatch(/^\/x\/config\.json is not a followup configuration/);
            // Whatever the file held (a token among it) stays out of the message.
            const tail = message.slice(message.indexOf('('));
            if (text.length >= 8) expect(tail).not.toContain(text);
            return;
          }
          expect(parsed).toMatchObject({ baseUrl: expect.any(String), token: expect.any(String) });
        },
      ),
    );
  });
});
