import { request } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { captureIo, runCliOn } from '../../test/support/cli-io.js';
import { useTestDatabase } from '../../test/support/database.js';
import { testPasswordHash } from '../../test/support/password-hash.js';
import { buildServer } from '../build-server.js';
import { systemClock } from '../clock.js';
import { createIdGenerator } from '../ids.js';
import { createSessionStore } from '../users/sessions.js';
import type { CliIo } from './cli-io.js';
import { runCli } from './run-cli.js';
import { UsageError } from './usage.js';
import { parsePublicUrl } from './user-commands.js';

/** A GET of `url` whose `Host` header is `host` (fetch cannot set it). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers: { host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('followup-server users …', () => {
  const database = useTestDatabase();

  const run = (argv: string[], env: CliIo['env'] = {}) => runCliOn(database(), argv, env);

  async function linkStatus(signInUrl: string): Promise<number> {
    const app = buildServer({ database: database(), logger: false });
    try {
      const response = await app.inject({ method: 'GET', url: new URL(signInUrl).pathname });
      return response.statusCode;
    } finally {
      await app.close();
    }
  }

  it('users invite --json prints {id, email, role, signInUrl, expiresAt} with a working link on the public URL', async () => {
    const before = Date.now();
    const invited = await run([
      'users',
      'invite',
      '--email',
      'ada@example.com',
      '--role',
      'manager',
      '--name',
      'Ada Lovelace',
      '--public-url',
      'https://followup.example.org/',
      '--json',
    ]);
    const after = Date.now();
    expect(invited.code).toBe(0);
    const json = JSON.parse(invited.out);
    expect(Object.keys(json)).toEqual(['id', 'email', 'role', 'signInUrl', 'expiresAt']);
    expect(json).toEqual({
      id: expect.stringMatching(/^usr_[0-9A-Z]{26}$/),
      email: 'ada@example.com',
      role: 'MANAGER',
      signInUrl: expect.stringMatching(
        /^https:\/\/followup\.example\.org\/signin\/[A-Za-z0-9_-]{43}$/,
      ),
      expiresAt: expect.any(String),
    });
    // A day from when the command ran (expiresAt is whole milliseconds: no rounding to allow for).
    const expiresAt = Date.parse(json.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 24 * 60 * 60 * 1000);
    expect(expiresAt).toBeLessThanOrEqual(after + 24 * 60 * 60 * 1000);
    expect(await linkStatus(json.signInUrl)).toBe(200);

    const { rows } = await database().query<{ action: string; actor_type: string }>(
      `SELECT action, actor_type FROM audit_entries WHERE target_id = $1`,
      [json.id],
    );
    expect(rows).toEqual([{ action: 'user.invited', actor_type: 'operator' }]);
    // Only the link's hash is stored.
    const links = await database().query<{ token_sha256: Buffer }>(
      'SELECT token_sha256 FROM sign_in_links',
    );
    const token = json.signInUrl.split('/').at(-1);
    expect(JSON.stringify(links.rows)).not.toContain(token);
  });

  it('users invite takes PUBLIC_URL, and prints the link once in text', async () => {
    const text = await run(['users', 'invite', '--email', 'b@example.com', '--role', 'AGENT'], {
      PUBLIC_URL: 'http://crm.internal:8080',
    });
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^Invited b@example\.com \(AGENT\) as usr_/);
    expect(text.out).toMatch(/\n {2}http:\/\/crm\.internal:8080\/signin\/[A-Za-z0-9_-]{43}\n$/);
  });

  it('refuses a bad role, a missing e-mail or a bad public URL with exit 2', async () => {
    for (const argv of [
      ['users', 'invite', '--email', 'c@example.com', '--role', 'OWNER'],
      ['users', 'invite', '--role', 'ADMIN'],
      ['users', 'invite', '--email', 'c@example.com', '--role', 'ADMIN', '--public-url', 'ftp://x'],
      ['users', 'disable'],
      ['users', 'sessions', 'revoke'],
    ]) {
      const result = await run(argv);
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/Run 'followup-server --help' for usage\.\n$/);
    }
    const { rows } = await database().query('SELECT id FROM users');
    expect(rows).toEqual([]);
  });

  it('users list, users sessions revoke and users disable, as JSON, end sessions at once', async () => {
    const invited = JSON.parse(
      (await run(['users', 'invite', '--email', 'd@example.com', '--role', 'ADMIN', '--json'])).out,
    );
    expect(invited.signInUrl).toMatch(/^http:\/\/127\.0\.0\.1:3000\/signin\//);
    const newId = createIdGenerator({ now: () => Date.now() });
    const sessions = createSessionStore({ database: database(), clock: systemClock, newId });
    await sessions.start(database(), invited.id);
    await sessions.start(database(), invited.id);

    const listed = JSON.parse((await run(['users', 'list', '--json'])).out);
    expect(listed).toEqual([
      {
        id: invited.id,
        email: 'd@example.com',
        name: 'd',
        role: 'ADMIN',
        state: 'invited',
        sessions: 2,
        createdAt: expect.any(String),
      },
    ]);

    const revoked = await run(['users', 'sessions', 'revoke', '--user', invited.id, '--json']);
    expect(JSON.parse(revoked.out)).toEqual({ id: invited.id, sessionsEnded: 2 });
    const started = await sessions.start(database(), invited.id);
    expect(await sessions.resolve(started.cookieValue)).toBeDefined();

    // A new role, as on the Users page: audited, and every session ends at once.
    const second = await sessions.start(database(), invited.id);
    const changed = await run(['users', 'role', '--user', invited.id, '--role', 'AGENT', '--json']);
    expect(JSON.parse(changed.out)).toMatchObject({ id: invited.id, role: 'AGENT', sessions: 0 });
    expect(await sessions.resolve(second.cookieValue)).toBeUndefined();
    const badRole = await run(['users', 'role', '--user', invited.id, '--role', 'OWNER', '--json']);
    expect(badRole.code).toBe(2);
    await sessions.start(database(), invited.id);

    const disabled = await run(['users', 'disable', '--user', invited.id, '--json']);
    expect(JSON.parse(disabled.out)).toMatchObject({
      id: invited.id,
      state: 'disabled',
      sessions: 0,
    });
    expect(await sessions.resolve(started.cookieValue)).toBeUndefined();
    expect(await linkStatus(invited.signInUrl)).toBe(410);

    const missing = await run(['users', 'disable', '--user', 'usr_missing', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.err)).toEqual({
      error: { code: 'not_found', message: 'No user has this id.' },
    });

    const { rows } = await database().query<{ action: string }>(
      `SELECT action FROM audit_entries WHERE target_id = $1 ORDER BY seq`,
      [invited.id],
    );
    expect(rows.map((row) => row.action)).toEqual([
      'user.invited',
      'user.sessions_revoked',
      'user.role_changed',
      'user.disabled',
    ]);
  });

  it('users list lists every user, past one page of 200', async () => {
    await database().query(
      `INSERT INTO users (id, email, name, role, created_at)
       SELECT 'usr_' || lpad(n::text, 4, '0'), 'u' || n || '@example.com', 'U', 'AGENT', now()
         FROM generate_series(1, 201) AS n`,
    );
    const listed = JSON.parse((await run(['users', 'list', '--json'])).out) as { id: string }[];
    expect(listed).toHaveLength(201);
    expect(new Set(listed.map((user) => user.id)).size).toBe(201);
  });

  it('start --demo prints a sign-in link for the same demo ADMIN user on every restart', async () => {
    const userIds: string[] = [];
    const links: string[] = [];
    for (let run = 0; run < 2; run++) {
      const controller = new AbortController();
      const captured = captureIo({}, controller.signal);
      captured.io.database = database();
      const exit = runCli(
        ['start', '--port', '0', '--demo', '--json', '--public-url', 'http://demo.localhost:3000'],
        captured.io,
      );
      const announced = JSON.parse(await captured.firstLine) as {
        url: string;
        signIn: { email: string; url: string; expiresAt: string };
      };
      expect(announced.signIn.email).toBe('demo@example.com');
      expect(announced.signIn.url).toMatch(
        /^http:\/\/demo\.localhost:3000\/signin\/[A-Za-z0-9_-]{43}$/,
      );
      // The link is on the public URL: ask the listening address for it under that host, as a
      // proxy in front of it would (another Host is 421).
      const page = await getWithHost(
        `${announced.url}${new URL(announced.signIn.url).pathname}`,
        new URL(announced.signIn.url).host,
      );
      expect(page.status).toBe(200);
      expect(page.body).toContain('Choose a password');
      links.push(announced.signIn.url);
      controller.abort();
      expect(await exit).toBe(0);
      const { rows } = await database().query<{ id: string; role: string }>(
        `SELECT id, role FROM users WHERE email = 'demo@example.com'`,
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]?.role).toBe('ADMIN');
      userIds.push(rows[0]?.id as string);
    }
    expect(userIds[1]).toBe(userIds[0]);
    expect(links[1]).not.toBe(links[0]);
  });

  it('start refuses a session duration out of bounds, and takes one within them', async () => {
    for (const argv of [
      ['start', '--port', '0', '--session-idle', '5s'],
      ['start', '--port', '0', '--session-lifetime', '31d'],
      ['start', '--port', '0', '--session-idle', 'soon'],
    ]) {
      const result = await run(argv);
      expect(result.code).toBe(2);
      expect(result.err).toMatch(/^followup-server: --session-(idle|lifetime) is a duration/);
    }
    const controller = new AbortController();
    const captured = captureIo({ SESSION_LIFETIME: '8h' }, controller.signal);
    captured.io.database = database();
    const exit = runCli(['start', '--port', '0', '--session-idle', '45m', '--json'], captured.io);
    const { url } = JSON.parse(await captured.firstLine) as { url: string };
    await database().query(
      `INSERT INTO users (id, email, name, role, created_at, password_hash)
       VALUES ('usr_s', 's@example.com', 'S', 'AGENT', now(), $1)`,
      [await testPasswordHash('a long enough password')],
    );
    const signedIn = await fetch(`${url}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
      body: new URLSearchParams({ email: 's@example.com', password: 'a long enough password' }),
    });
    expect(signedIn.status).toBe(303);
    const { rows } = await database().query<{ lifetime: number }>(
      'SELECT extract(epoch FROM expires_at - created_at)::int AS lifetime FROM sessions',
    );
    expect(rows).toEqual([{ lifetime: 8 * 60 * 60 }]);
    controller.abort();
    expect(await exit).toBe(0);
  });

  it('start --demo in text mode prints the sign-in link', async () => {
    const controller = new AbortController();
    const captured = captureIo({}, controller.signal);
    captured.io.database = database();
    const exit = runCli(['start', '--port', '0', '--demo'], captured.io);
    await captured.firstLine;
    controller.abort();
    expect(await exit).toBe(0);
    const text = captured.out.join('');
    expect(text).toMatch(
      /Demo ADMIN user demo@example\.com: open this one-time sign-in link \(valid 24 hours\)\nand choose a password:\n {2}http:\/\/127\.0\.0\.1:\d+\/signin\/[A-Za-z0-9_-]{43}\n/,
    );
  });
});

describe('parsePublicUrl', () => {
  it('keeps the origin of an http(s) URL, and refuses a path, credentials or another scheme with a usage error', () => {
    expect(parsePublicUrl('https://followup.example.org/')).toBe('https://followup.example.org');
    expect(parsePublicUrl('http://127.0.0.1:3000')).toBe('http://127.0.0.1:3000');
    expect(() => parsePublicUrl('https://example.org/followup/')).toThrow(UsageError);
    expect(() => parsePublicUrl('https://user:pw@example.org')).toThrow(UsageError);
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        try {
          const url = parsePublicUrl(text);
          expect(['http:', 'https:']).toContain(new URL(url).protocol);
          expect(url.endsWith('/')).toBe(false);
        } catch (error) {
          expect(error).toBeInstanceOf(UsageError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
