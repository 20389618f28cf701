import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { signVendorPayload, vendorProfiles, verifySignature } from '@followup/webhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { captureIo, runCliOn } from '../../test/support/cli-io.js';
import { useCliStorage } from '../../test/support/cli-storage.js';
import {
  testDriver,
  testServerTransactionsSettled,
  transactionsSettled,
  useTestDatabase,
} from '../../test/support/database.js';
import { writeMigratedDataDirectory } from '../../test/support/pglite-template.js';
import { startSubscriber } from '../../test/support/subscriber.js';
import { listAuditEntries } from '../audit/audit-log.js';
import { createIdGenerator } from '../ids.js';
import { LOCK_FILE_NAME } from '../storage/data-directory-lock.js';
import { SYNCED_MARKER_FILE } from '../storage/data-directory-sync.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { createAccountStore } from '../tokens/account-store.js';
import { parseToken } from '../tokens/token-format.js';
import { OPERATOR_CHANNEL_FILE, OPERATOR_SOCKET_FILE } from './operator-channel.js';
import { runCli } from './run-cli.js';

/** The body of the demo EHR vendor's test webhook, as `start --demo` prints it. */
const DEMO_BODY = JSON.stringify({ event: 'appointment.created', id: 'demo-1' });

const execFileAsync = promisify(execFile);

describe('followup-server', () => {
  it('prints its usage with --help', async () => {
    const { io, out } = captureIo();
    expect(await runCli(['--help'], io)).toBe(0);
    expect(out.join('')).toContain('Usage: followup-server <command>');
  });

  it('exits 2 with one line pointing to --help on a missing or unknown command or option', async () => {
    for (const [argv, said] of [
      [[], 'A command is required.'],
      [['launch'], 'Unknown command: launch.'],
      [['start', 'now'], 'Unknown command: start now.'],
      [['start', '--colour'], "Unknown option '--colour'."],
    ] as const) {
      const { io, out, err } = captureIo();
      expect(await runCli(argv, io)).toBe(2);
      expect(err.join('')).toBe(
        `followup-server: ${said} Run 'followup-server --help' for usage.\n`,
      );
      expect(out).toEqual([]);
    }
  });

  it('refuses a port that is not one', async () => {
    const { io, err } = captureIo();
    expect(await runCli(['start', '--port', 'http'], io)).toBe(2);
    expect(err.join('')).toBe(
      "followup-server: Not a port: http. Run 'followup-server --help' for usage.\n",
    );
  });

  describe.skipIf(testDriver !== 'pglite')('the data directory', () => {
    let home: string;
    beforeEach(async () => {
      home = await mkdtemp(join(tmpdir(), 'followup-home-'));
    });
    afterEach(async () => {
      await rm(home, { recursive: true, force: true });
    });
    const defaultDir = () => join(home, '.local', 'share', 'followup');

    it('reports a usage error of an operator command before any database is opened', async () => {
      for (const [argv, said] of [
        [['tokens', 'issue'], '--account is required.'],
        [['accounts', 'create', '--name', 'x', '--role', 'OWNER'], '--role must be one of'],
        [['seed', '--contacts', 'many'], '--contacts is a whole number'],
        [['tokens', 'issue', '--account', 'sa_1', '--ttl', '0'], '--ttl is a positive'],
        [
          ['tokens', 'issue', '--account', 'sa_1', '--ttl', '-5'],
          "Option '--ttl' argument is ambiguous.",
        ],
      ] as const) {
        const named = join(home, 'named');
        for (const extra of [[], ['--data-dir', named]]) {
          const { io, err } = captureIo({ HOME: home });
          expect(await runCli([...argv, ...extra], io)).toBe(2);
          const text = err.join('');
          expect(text).toContain(said);
          expect(text).toMatch(/^followup-server: .* Run 'followup-server --help' for usage\.\n$/);
          expect(existsSync(defaultDir())).toBe(false);
          expect(existsSync(named)).toBe(false);
        }
      }
    });

    it('an operator command that finds no database exits 1 naming the directory, creating nothing', async () => {
      const { io, err } = captureIo({ HOME: home });
      expect(await runCli(['accounts', 'list'], io)).toBe(1);
      expect(err.join('')).toBe(
        `followup-server: No database in ${defaultDir()}. Start the server first ` +
          '(followup-server start), or name its data directory with --data-dir or ' +
          'FOLLOWUP_DATA_DIR. (data_directory_missing)\n',
      );
      expect(existsSync(defaultDir())).toBe(false);
      const json = captureIo({ HOME: home, XDG_DATA_HOME: join(home, 'xdg') });
      expect(await runCli(['accounts', 'list', '--json'], json.io)).toBe(1);
      expect(JSON.parse(json.err.join(''))).toEqual({
        error: {
          code: 'data_directory_missing',
          message: expect.stringContaining(join(home, 'xdg', 'followup')),
        },
      });
      expect(existsSync(join(home, 'xdg'))).toBe(false);
    });

    it('start creates the default directory, and operator commands find it from anywhere', async () => {
      const controller = new AbortController();
      const started = captureIo({ HOME: home }, controller.signal);
      const exit = runCli(['start', '--port', '0', '--json'], started.io);
      await started.firstLine;
      expect(existsSync(join(defaultDir(), 'PG_VERSION'))).toBe(true);
      // Beside the running server (through its operator channel), with no --data-dir.
      const created = captureIo({ HOME: home });
      expect(
        await runCli(
          ['accounts', 'create', '--name', 'ops', '--role', 'READONLY', '--json'],
          created.io,
        ),
      ).toBe(0);
      expect(JSON.parse(created.out.join(''))).toMatchObject({ name: 'ops', role: 'READONLY' });
      controller.abort();
      expect(await exit).toBe(0);
    });

    it('start --unsafe-no-fsync says what it risks and syncs nothing; refused beside PostgreSQL', async () => {
      // A cluster that exists and was never synced (the run's template; creating one is
      // tested below and above): a durable start would sync it and leave the marker.
      const named = join(home, 'unsafe');
      await writeMigratedDataDirectory(named);
      const controller = new AbortController();
      const started = captureIo({ HOME: home }, controller.signal);
      const exit = runCli(
        ['start', '--port', '0', '--json', '--unsafe-no-fsync', '--data-dir', named],
        started.io,
      );
      await started.firstLine;
      controller.abort();
      expect(await exit).toBe(0);
      const warnings = started.err
        .join('')
        .split('\n')
        .filter((line) => line.includes('--unsafe-no-fsync'))
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        level: 40,
        msg: expect.stringContaining('a power cut or a kernel crash can lose acknowledged writes'),
      });
      // The next durable open finds no marker, and syncs every file first.
      expect(existsSync(join(named, 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(named, SYNCED_MARKER_FILE))).toBe(false);
      // It opened the named directory, not a default one.
      expect(existsSync(defaultDir())).toBe(false);

      const postgres = 'postgres://127.0.0.1:1/nowhere';
      for (const [argv, env] of [
        [['--unsafe-no-fsync', '--database-url', postgres], {}],
        [['--unsafe-no-fsync'], { DATABASE_URL: postgres }],
        [['--database-url', postgres], { UNSAFE_NO_FSYNC: 'true' }],
      ] as const) {
        for (const command of [
          ['start', '--port', '0'],
          ['accounts', 'list'],
        ]) {
          const { io, err, out } = captureIo({ HOME: home, ...env });
          expect(await runCli([...command, ...argv], io)).toBe(2);
          expect(err.join('')).toBe(
            "followup-server: --unsafe-no-fsync (UNSAFE_NO_FSYNC) applies to the embedded database only; on PostgreSQL, durability is its server's settings (fsync, synchronous_commit). Run 'followup-server --help' for usage.\n",
          );
          expect(out).toEqual([]);
        }
      }
    });

    it('an explicit directory may be created by an operator command', async () => {
      const named = join(home, 'fresh');
      // (FOLLOWUP_DATA_DIR names a directory the same way: data-directory.test.ts.)
      const { io, out } = captureIo({ HOME: home });
      expect(await runCli(['accounts', 'list', '--json', '--data-dir', named], io)).toBe(0);
      expect(JSON.parse(out.join(''))).toEqual([]);
      expect(existsSync(join(named, 'PG_VERSION'))).toBe(true);
      expect(existsSync(defaultDir())).toBe(false);
    });
  });

  describe('operator commands', () => {
    const database = useTestDatabase();

    const run = (...argv: string[]) => runCliOn(database(), argv);

    it('pages every list command with --limit and --offset', async () => {
      for (const name of ['a', 'b', 'c']) {
        expect((await run('accounts', 'create', '--name', name, '--role', 'AGENT')).code).toBe(0);
      }
      const names = async (...argv: string[]) =>
        (
          JSON.parse((await run('accounts', 'list', '--json', ...argv)).out) as { name: string }[]
        ).map((account) => account.name);
      // Listed by creation time, then id: two runs of the CLI within one millisecond may list
      // their accounts either way round, so the pages are checked against the whole list.
      const all = await names();
      expect([...all].sort()).toEqual(['a', 'b', 'c']);
      expect(await names('--limit', '2')).toEqual(all.slice(0, 2));
      expect(await names('--limit', '2', '--offset', '2')).toEqual(all.slice(2));
      const text = await run('accounts', 'list', '--limit', '2');
      expect(text.out).toContain('(2 shown, a full page: for more, --offset 2)');
      expect((await run('accounts', 'list', '--limit', '4')).out).not.toContain('full page');
      for (const command of [
        ['receipts', 'list'],
        ['deliveries', 'list'],
        ['endpoints', 'list'],
      ]) {
        expect(JSON.parse((await run(...command, '--json', '--limit', '1')).out)).toEqual([]);
      }
      for (const [flag, value] of [
        ['--limit', '0'],
        ['--limit', '1001'],
        ['--limit', 'all'],
        ['--offset', '1.5'],
      ] as const) {
        const refused = await run('receipts', 'list', flag, value);
        expect(refused.code).toBe(2);
        expect(refused.err).toContain(`${flag} is a whole number`);
      }
    });

    it('creates and lists service accounts, as JSON and as text', async () => {
      const created = await run(
        'accounts',
        'create',
        '--name',
        'crm sync',
        '--role',
        'manager',
        '--json',
      );
      expect(created.code).toBe(0);
      const account = JSON.parse(created.out);
      expect(account).toEqual({
        id: expect.stringMatching(/^sa_/),
        name: 'crm sync',
        role: 'MANAGER',
        createdAt: expect.any(String),
        disabledAt: null,
      });
      const listed = await run('accounts', 'list', '--json');
      expect(JSON.parse(listed.out)).toEqual([{ ...account, activeTokens: 0 }]);
      const text = await run('accounts', 'list');
      expect(text.out).toContain(account.id);
      expect(text.out).toContain('crm sync');
    });

    it('issues a working token once, lists it without its secret, and revokes it', async () => {
      const account = JSON.parse(
        (await run('accounts', 'create', '--name', 'a', '--role', 'ADMIN', '--json')).out,
      );
      const issued = await run(
        'tokens',
        'issue',
        '--account',
        account.id,
        '--ttl',
        '3600',
        '--json',
      );
      expect(issued.code).toBe(0);
      const token = JSON.parse(issued.out);
      expect(token).toEqual({
        id: expect.stringMatching(/^tok_/),
        token: expect.stringMatching(/^hns_sa_/),
        expiresAt: expect.any(String),
        label: null,
      });
      const store = createAccountStore({ database: database() });
      expect(await store.verifyToken(token.token)).toMatchObject({ ok: true, tokenId: token.id });

      const listed = await run('tokens', 'list', '--account', account.id, '--json');
      expect(JSON.parse(listed.out)).toEqual([
        expect.objectContaining({ id: token.id, state: 'active', expiresAt: token.expiresAt }),
      ]);
      expect(listed.out).not.toContain(parseToken(token.token)?.secret);

      const revoked = await run('tokens', 'revoke', '--token', token.id, '--json');
      expect(JSON.parse(revoked.out)).toMatchObject({ id: token.id, state: 'revoked' });
      expect(await store.verifyToken(token.token)).toEqual({ ok: false, code: 'token_revoked' });
      await transactionsSettled(database());
      const { entries } = await listAuditEntries(database());
      expect(entries.map((entry) => [entry.action, entry.actor])).toEqual([
        ['service_account.created', { type: 'operator' }],
        ['token.issued', { type: 'operator' }],
        ['token.revoked', { type: 'operator' }],
      ]);
    });

    it('labels a token, and lists its label and last use', async () => {
      const account = JSON.parse(
        (await run('accounts', 'create', '--name', 'a', '--role', 'AGENT', '--json')).out,
      );
      const issued = JSON.parse(
        (await run('tokens', 'issue', '--account', account.id, '--label', 'ci deploy', '--json'))
          .out,
      );
      expect(issued.label).toBe('ci deploy');
      await createAccountStore({ database: database() }).verifyToken(issued.token);
      const listed = JSON.parse(
        (await run('tokens', 'list', '--account', account.id, '--json')).out,
      );
      expect(listed).toEqual([
        expect.objectContaining({
          id: issued.id,
          label: 'ci deploy',
          lastUsedAt: expect.stringMatching(/Z$/),
        }),
      ]);
      const text = (await run('tokens', 'list', '--account', account.id)).out;
      expect(text).toContain('"ci deploy"');
      expect(text).toContain(`last used ${listed[0].lastUsedAt}`);
      const bad = await run('tokens', 'issue', '--account', account.id, '--label', '');
      expect(bad.code).toBe(1);
      expect(bad.err).toContain('invalid_label');
    });

    it('rolls a token: a replacement once, the old one expiring after the grace', async () => {
      const account = JSON.parse(
        (await run('accounts', 'create', '--name', 'a', '--role', 'AGENT', '--json')).out,
      );
      const old = JSON.parse((await run('tokens', 'issue', '--account', account.id, '--json')).out);
      const before = Date.now();
      const rolled = await run('tokens', 'roll', '--token', old.id, '--grace', '90s', '--json');
      const after = Date.now();
      expect(rolled.code).toBe(0);
      const result = JSON.parse(rolled.out);
      expect(result).toMatchObject({
        id: expect.stringMatching(/^tok_/),
        token: expect.stringMatching(/^hns_sa_/),
        previous: { id: old.id, state: 'active', replacedBy: result.id },
      });
      // 90 s from when the command ran.
      const oldExpiresAt = Date.parse(result.previous.expiresAt);
      expect(oldExpiresAt).toBeGreaterThanOrEqual(before + 90_000);
      expect(oldExpiresAt).toBeLessThanOrEqual(after + 90_000);
      const store = createAccountStore({ database: database() });
      expect((await store.verifyToken(result.token)).ok).toBe(true);
      expect((await store.verifyToken(old.token)).ok).toBe(true);
      const text = await run('tokens', 'roll', '--token', result.id, '--grace', '30m');
      expect(parseToken(text.out.split('\n')[0] ?? '')?.accountId).toBe(account.id);
      expect(text.out).toContain(`replaces ${result.id}`);
      await transactionsSettled(database());
      const { entries } = await listAuditEntries(database());
      expect(entries.filter((entry) => entry.action === 'token.rolled')).toHaveLength(2);
    });

    it('disables an account, revoking its tokens', async () => {
      const account = JSON.parse(
        (await run('accounts', 'create', '--name', 'a', '--role', 'AGENT', '--json')).out,
      );
      const issued = JSON.parse(
        (await run('tokens', 'issue', '--account', account.id, '--json')).out,
      );
      const disabled = await run('accounts', 'disable', '--account', account.id, '--json');
      expect(JSON.parse(disabled.out)).toMatchObject({
        id: account.id,
        disabledAt: expect.stringMatching(/Z$/),
        tokensRevoked: 1,
      });
      const store = createAccountStore({ database: database() });
      expect(await store.verifyToken(issued.token)).toEqual({ ok: false, code: 'token_revoked' });
      expect((await run('accounts', 'list')).out).toMatch(/disabled\s+0 active tokens\s+a\n/);
      const again = await run('tokens', 'issue', '--account', account.id);
      expect(again.code).toBe(1);
      expect(again.err).toContain('account_disabled');
    });

    it('prints the token alone on its first line in text mode', async () => {
      const account = JSON.parse(
        (await run('accounts', 'create', '--name', 'a', '--role', 'AGENT', '--json')).out,
      );
      const issued = await run('tokens', 'issue', '--account', account.id);
      const [firstLine] = issued.out.split('\n');
      expect(parseToken(firstLine ?? '')?.accountId).toBe(account.id);
      expect(issued.out).toContain('only time it is shown');
    });

    it.each([
      [['accounts', 'create', '--role', 'ADMIN'], '--name is required'],
      [['accounts', 'create', '--name', 'x', '--role', 'OWNER'], '--role must be one of'],
      [['tokens', 'issue'], '--account is required'],
      [['tokens', 'issue', '--account', 'sa_x', '--ttl', '0'], '--ttl is a positive'],
      [['tokens', 'issue', '--account', 'sa_x', '--ttl', '1.5'], '--ttl is a positive'],
      [['tokens', 'issue', '--account', 'sa_x', '--ttl', '9999999999999'], 'at most 315360000'],
      [['tokens', 'issue', '--account', 'sa_x', '--ttl', '315360001'], 'at most 315360000'],
      [['tokens', 'revoke'], '--token is required'],
      [['tokens', 'roll'], '--token is required'],
      [['tokens', 'roll', '--token', 'tok_x', '--grace', '24'], '--grace is a duration'],
      [['tokens', 'roll', '--token', 'tok_x', '--grace', '1.5h'], '--grace is a duration'],
      [['tokens', 'roll', '--token', 'tok_x', '--grace', '31d'], '--grace is a duration'],
      [['accounts', 'disable'], '--account is required'],
    ])('exits 2 on %j', async (argv, message) => {
      const result = await run(...argv);
      expect(result.code).toBe(2);
      expect(result.err).toContain(message);
    });

    it('lists EHR receipts, filtered by vendor', async () => {
      await database().query(
        `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
         VALUES ('rcpt_1', 'athenahealth', 'valid', '\\x7b7d', '{}', '2026-03-01T09:00:00Z'),
                ('rcpt_2', 'metriport', 'invalid_signature', '\\x', '{}', '2026-03-01T09:00:01Z')`,
      );
      const all = JSON.parse((await run('receipts', 'list', '--json')).out);
      expect(all).toEqual([
        {
          id: 'rcpt_1',
          vendor: 'athenahealth',
          verdict: 'valid',
          receivedAt: '2026-03-01T09:00:00.000Z',
          handledAt: null,
          handlerError: null,
          bodyBytes: 2,
        },
        expect.objectContaining({ id: 'rcpt_2', verdict: 'invalid_signature', bodyBytes: 0 }),
      ]);
      const metriport = JSON.parse(
        (await run('receipts', 'list', '--vendor', 'metriport', '--json')).out,
      );
      expect(metriport.map((receipt: { id: string }) => receipt.id)).toEqual(['rcpt_2']);
    });

    it('start takes --demo and --json from FOLLOWUP_DEMO and FOLLOWUP_JSON', async () => {
      const controller = new AbortController();
      const captured = captureIo(
        { FOLLOWUP_DEMO: 'true', FOLLOWUP_JSON: 'yes' },
        controller.signal,
      );
      captured.io.database = database();
      const exit = runCli(['start', '--port', '0'], captured.io);
      const announced = JSON.parse(await captured.firstLine) as { url: string; token: string };
      const response = await fetch(`${announced.url}/api/contacts/count`, {
        headers: { authorization: `Bearer ${announced.token}` },
      });
      expect(await response.json()).toEqual({ count: 300 });
      controller.abort();
      expect(await exit).toBe(0);
    });

    it('start --demo prints a working ADMIN token once', async () => {
      const controller = new AbortController();
      const captured = captureIo({}, controller.signal);
      captured.io.database = database();
      const started = Date.now();
      const exit = runCli(['start', '--port', '0', '--demo', '--json'], captured.io);
      const announced = JSON.parse(await captured.firstLine) as { url: string; token: string };
      const announcedAt = Date.now();
      expect(parseToken(announced.token)).toBeDefined();
      const response = await fetch(`${announced.url}/api/audit`, {
        headers: { authorization: `Bearer ${announced.token}` },
      });
      expect(response.status).toBe(200);
      const accounts = await createAccountStore({ database: database() }).listAccounts();
      expect(accounts.map((account) => [account.name, account.role])).toEqual([['demo', 'ADMIN']]);
      // Demo data to call at once: 300 contacts and 150 deals.
      for (const [path, count] of [
        ['/api/contacts/count', 300],
        ['/api/deals/count', 150],
      ] as const) {
        const counted = await fetch(`${announced.url}${path}`, {
          headers: { authorization: `Bearer ${announced.token}` },
        });
        expect(await counted.json()).toEqual({ count });
      }
      controller.abort();
      expect(await exit).toBe(0);
      // The demo token expires in a day, instead of never.
      const store = createAccountStore({ database: database() });
      const [demoAccount] = await store.listAccounts();
      const [firstToken] = await store.listTokens(demoAccount?.id ?? '');
      expect(firstToken?.expiresAt).toBeTruthy();
      const expiresAt = Date.parse(firstToken?.expiresAt ?? '');
      expect(expiresAt).toBeGreaterThanOrEqual(started + 24 * 60 * 60 * 1000);
      expect(expiresAt).toBeLessThanOrEqual(announcedAt + 24 * 60 * 60 * 1000);
      // A second start --demo reuses the demo account (a new token) and adds no more demo data.
      const again = new AbortController();
      const second = captureIo({}, again.signal);
      second.io.database = database();
      const secondExit = runCli(['start', '--port', '0', '--demo', '--json'], second.io);
      const secondAnnounced = JSON.parse(await second.firstLine) as { url: string; token: string };
      expect(parseToken(secondAnnounced.token)?.accountId).toBe(demoAccount?.id);
      again.abort();
      expect(await secondExit).toBe(0);
      expect((await store.listAccounts()).map((account) => account.id)).toEqual([demoAccount?.id]);
      const { rows } = await database().query('SELECT count(*)::int AS n FROM contacts');
      expect(rows).toEqual([{ n: 300 }]);
      // The injected database is the caller's: still open.
      expect((await database().query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    });

    it('start takes --rate-limit, and ADDRESS_RATE_LIMIT from the environment, per minute', async () => {
      const controller = new AbortController();
      const captured = captureIo({ ADDRESS_RATE_LIMIT: '1' }, controller.signal);
      captured.io.database = database();
      const exit = runCli(
        ['start', '--port', '0', '--demo', '--json', '--rate-limit', '2'],
        captured.io,
      );
      const announced = JSON.parse(await captured.firstLine) as { url: string; token: string };
      const headers = { authorization: `Bearer ${announced.token}` };
      const first = await fetch(`${announced.url}/api/audit`, { headers });
      expect(first.headers.get('ratelimit-policy')).toBe('"per-token";q=2;w=60');
      await fetch(`${announced.url}/api/audit`, { headers });
      expect((await fetch(`${announced.url}/api/audit`, { headers })).status).toBe(429);
      const inbox = () =>
        fetch(`${announced.url}/api/inbox/webhook`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"from":"a@example.com","subject":"s"}',
        });
      expect((await inbox()).status).toBe(201);
      expect((await inbox()).status).toBe(429);
      controller.abort();
      expect(await exit).toBe(0);
      for (const [flag, value] of [
        ['--rate-limit', '1.5'],
        ['--address-rate-limit', 'lots'],
        ['--auth-failure-limit', '10000000'],
      ] as const) {
        const refused = captureIo();
        refused.io.database = database();
        expect(await runCli(['start', '--port', '0', flag, value], refused.io)).toBe(2);
        expect(refused.err.join('')).toContain(`${flag} (`);
      }
    });

    // Without the proxies named, any client could pick its address with X-Forwarded-For and walk
    // past the per-address limits, or forge the address the audit log and the logs record.
    it('refuses a bare --trust-proxy or TRUST_PROXY=true at start, asking for the proxies', async () => {
      for (const [argv, env] of [
        [['--trust-proxy'], {}],
        [['--trust-proxy', '--json'], {}],
        [['--trust-proxy='], {}],
        [[], { TRUST_PROXY: 'true' }],
        [[], { TRUST_PROXY: 'yes' }],
      ] as const) {
        const refused = captureIo({ ...env });
        refused.io.database = database();
        expect(await runCli(['start', '--port', '0', ...argv], refused.io), argv.join(' ')).toBe(2);
        const said = refused.err.join('');
        expect(said).toContain('--trust-proxy 10.0.0.0/8,127.0.0.1');
        expect(said).toContain('--trust-proxy 1');
        expect(refused.out).toEqual([]);
      }
    });

    it('takes the proxies from --trust-proxy or TRUST_PROXY as addresses or a hop count', async () => {
      // The address the server uses for a request from this machine that says it forwards
      // 203.0.113.9: the one its request log line records (as the limits and audit log do).
      const addressSeen = async (argv: string[], env: Record<string, string> = {}) => {
        const controller = new AbortController();
        const captured = captureIo(env, controller.signal);
        captured.io.database = database();
        const exit = runCli(['start', '--port', '0', '--json', ...argv], captured.io);
        const announced = JSON.parse(await captured.firstLine) as { url: string };
        const answer = await fetch(`${announced.url}/healthz`, {
          headers: { 'x-forwarded-for': '203.0.113.9' },
        });
        expect(answer.status).toBe(200);
        controller.abort();
        expect(await exit).toBe(0);
        const line = captured.err
          .join('')
          .split('\n')
          .map((text) => (text.startsWith('{') ? JSON.parse(text) : {}))
          .find((entry) => entry.req?.url === '/healthz');
        return line?.req?.remoteAddress;
      };
      expect(await addressSeen(['--trust-proxy', '10.0.0.0/8,127.0.0.1'])).toBe('203.0.113.9');
      expect(await addressSeen([], { TRUST_PROXY: '127.0.0.0/8' })).toBe('203.0.113.9');
      expect(await addressSeen(['--trust-proxy', '1'])).toBe('203.0.113.9');
      expect(await addressSeen([], { TRUST_PROXY: '1' })).toBe('203.0.113.9');
      // Not a proxy named, and not trusted at all: the socket's own address.
      expect(await addressSeen(['--trust-proxy', '10.0.0.0/8'])).toBe('127.0.0.1');
      expect(await addressSeen([])).toBe('127.0.0.1');
      expect(await addressSeen([], { TRUST_PROXY: 'false' })).toBe('127.0.0.1');
    });

    it('prune deletes what outlived its retention, as JSON and as text', async () => {
      await database().query(
        `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
         VALUES ('rcpt_old', 'nobody', 'unknown_vendor', '\\x', '{}', now() - interval '40 days'),
                ('rcpt_mid', 'nobody', 'unknown_vendor', '\\x', '{}', now() - interval '10 days'),
                ('rcpt_new', 'nobody', 'unknown_vendor', '\\x', '{}', now())`,
      );
      const first = JSON.parse((await run('prune', '--json')).out);
      expect(first).toMatchObject({ ehrReceipts: 1, deliveries: 0, idempotencyKeys: 0 });
      const text = (await run('prune', '--receipt-retention', '7')).out;
      expect(text).toContain('ehrReceipts: 1 deleted');
      const { rows } = await database().query<{ id: string }>('SELECT id FROM ehr_receipts');
      expect(rows).toEqual([{ id: 'rcpt_new' }]);
      const refused = captureIo();
      refused.io.database = database();
      expect(await runCli(['prune', '--receipt-retention', '0'], refused.io)).toBe(2);
    });

    it('prune --tombstone-retention deletes older tombstones of deleted contacts', async () => {
      await database().query(
        `INSERT INTO contact_tombstones (id, deleted_at)
         VALUES ('con_old', now() - interval '100 days'), ('con_mid', now() - interval '20 days'),
                ('con_new', now())`,
      );
      expect(JSON.parse((await run('prune', '--json')).out)).toMatchObject({
        contactTombstones: 1,
      });
      const text = (await run('prune', '--tombstone-retention', '7')).out;
      expect(text).toContain('contactTombstones: 1 deleted');
      const { rows } = await database().query<{ id: string }>('SELECT id FROM contact_tombstones');
      expect(rows).toEqual([{ id: 'con_new' }]);
      const refused = captureIo();
      refused.io.database = database();
      expect(await runCli(['prune', '--tombstone-retention', '0'], refused.io)).toBe(2);
    });

    it('start --demo in text mode prints the token, a first call to try and the demo data', async () => {
      const controller = new AbortController();
      const captured = captureIo({}, controller.signal);
      captured.io.database = database();
      const exit = runCli(['start', '--port', '0', '--demo'], captured.io);
      await captured.firstLine;
      controller.abort();
      expect(await exit).toBe(0);
      const text = captured.out.join('');
      expect(text).toMatch(
        /^FollowUp server listening on http:\/\/127\.0\.0\.1:\d+ \(\w+\), ready \d+(\.\d)? s after the process started\n/,
      );
      const token = /^ {2}(hns_\S+)$/m.exec(text)?.[1];
      expect(token && parseToken(token)).toBeTruthy();
      expect(text).toContain(`Authorization: Bearer ${token}`);
      expect(text).toMatch(/\/api\/contacts\n/);
      expect(text).toContain('Seeded 300 demo contacts and 150 deals.\n');
    });

    it('start --demo configures a demo EHR secret and prints a command that sends a signed webhook', async () => {
      const controller = new AbortController();
      const captured = captureIo({}, controller.signal);
      captured.io.database = database();
      const exit = runCli(['start', '--port', '0', '--demo'], captured.io);
      await captured.firstLine;
      const text = captured.out.join('');
      const secret = /webhook secret \(shown once\):\n {2}(\S+)\n/.exec(text)?.[1];
      const command = /signed test webhook.*:\n {2}(node -e .+)\n/.exec(text)?.[1];
      expect(secret).toMatch(/^[\w-]{43}$/);
      // The command carries the vendor's signature of its body, not the secret.
      expect(command).not.toContain(secret);
      const signature = /'x-hub-signature':'(sha256=[0-9a-f]{64})'/.exec(command ?? '')?.[1];
      expect(signature).toBeDefined();
      // Pasted into a shell as printed.
      const shell = (line: string) =>
        execFileAsync('sh', ['-c', line], {
          env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}` },
        });
      const sent = await shell(command ?? '');
      expect(sent.stdout).toMatch(/^202 \{"receiptId":"rcpt_\w+"\}\n$/);
      // The server checks the signature: the same command signed with another secret is refused.
      const forged = await shell(
        (command ?? '').replace(
          signature ?? '',
          signVendorPayload(vendorProfiles.athenahealth, DEMO_BODY, { secret: 'not-the-secret' }),
        ),
      );
      expect(forged.stdout).toMatch(/^401 /);
      // The time to the first answered request is logged once.
      const answered = captured.err
        .join('')
        .split('\n')
        .filter((line) => line.includes('"msg":"first request answered"'));
      expect(answered).toHaveLength(1);
      expect(JSON.parse(answered[0] ?? '{}').secondsSinceStart).toBeGreaterThan(0);
      controller.abort();
      expect(await exit).toBe(0);
      const receipts = JSON.parse((await run('receipts', 'list', '--json')).out);
      expect(
        receipts.map((receipt: { vendor: string; verdict: string }) => [
          receipt.vendor,
          receipt.verdict,
        ]),
      ).toEqual([
        ['athenahealth', 'valid'],
        ['athenahealth', 'invalid_signature'],
      ]);
    });

    it('start --demo leaves a configured EHR secret alone and prints none', async () => {
      const controller = new AbortController();
      const captured = captureIo(
        { EHR_WEBHOOK_SECRET_ATHENAHEALTH: 'configured-secret' },
        controller.signal,
      );
      captured.io.database = database();
      const exit = runCli(['start', '--port', '0', '--demo', '--json'], captured.io);
      const announced = JSON.parse(await captured.firstLine);
      expect(announced).not.toHaveProperty('ehr');
      controller.abort();
      expect(await exit).toBe(0);
      const json = captureIo({}, controller.signal);
      json.io.database = database();
      const jsonController = new AbortController();
      json.io.signal = jsonController.signal;
      const jsonExit = runCli(['start', '--port', '0', '--demo', '--json'], json.io);
      expect(JSON.parse(await json.firstLine).ehr).toEqual({
        vendor: 'athenahealth',
        secret: expect.stringMatching(/^[\w-]{43}$/),
      });
      jsonController.abort();
      expect(await jsonExit).toBe(0);
    });

    it('seed --contacts N adds demo contacts and deals, as JSON and as text', async () => {
      const seeded = await run('seed', '--contacts', '3', '--json');
      expect(seeded.code).toBe(0);
      expect(JSON.parse(seeded.out)).toEqual({ contacts: 3, deals: 2 });
      // Not a terminal: no progress bar.
      expect(seeded.err).toBe('');
      const text = await run('seed', '--contacts', '2');
      expect(text.out).toBe('Added 2 demo contacts and 1 deals\n');
      const { rows } = await database().query('SELECT count(*)::int AS n FROM contacts');
      expect(rows).toEqual([{ n: 5 }]);
    });

    it('seed draws a progress bar on a terminal, and none with --json', async () => {
      for (const json of [false, true]) {
        const captured = captureIo();
        captured.io.database = database();
        const written: string[] = [];
        captured.io.stderr = { isTTY: true, write: (text: string) => written.push(text) };
        const argv = ['seed', '--contacts', '600', ...(json ? ['--json'] : [])];
        expect(await runCli(argv, captured.io)).toBe(0);
        if (json) {
          expect(written).toEqual([]);
        } else {
          expect(written.at(0)).toMatch(/^\rseed \[#+-+\] {2}83% 500\/600$/);
          expect(written.at(-2)).toMatch(/^\rseed \[#{30}\] 100% 600\/600$/);
          expect(written.at(-1)).toBe('\n');
        }
      }
    });

    it.each([[[]], [['--contacts', 'many']], [['--contacts', '-1']], [['--contacts', '1000001']]])(
      'seed %j is a usage error',
      async (options) => {
        const result = await run('seed', ...options);
        expect(result.code).toBe(2);
        expect(result.err).toContain('--contacts');
      },
    );

    it('refuses an endpoint URL over 2,048 characters as a usage error, and adds nothing', async () => {
      const base = 'https://hooks.example.com/followup?token=';
      const tooLong = `${base}${'a'.repeat(2_049 - base.length)}`;
      const refused = await run('endpoints', 'add', '--url', tooLong);
      expect(refused.code).toBe(2);
      expect(refused.err).toBe(
        'followup-server: --url: The endpoint URL must be at most 2,048 characters; this one ' +
          "has 2,049. Run 'followup-server --help' for usage.\n",
      );
      expect(refused.out).toBe('');
      expect(JSON.parse((await run('endpoints', 'list', '--json')).out)).toEqual([]);
      const longest = `${base}${'a'.repeat(2_048 - base.length)}`;
      const added = await run('endpoints', 'add', '--url', longest, '--json');
      expect(added.code).toBe(0);
      expect(JSON.parse(added.out).url).toBe(longest);
    });

    it('adds, lists, disables, rotates and removes webhook endpoints; secrets shown once', async () => {
      const added = await run(
        'endpoints',
        'add',
        '--url',
        'https://hooks.example.com/followup',
        '--events',
        'contact.created',
        '--json',
      );
      expect(added.code).toBe(0);
      const endpoint = JSON.parse(added.out);
      expect(endpoint).toEqual({
        id: expect.stringMatching(/^we_/),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        url: 'https://hooks.example.com/followup',
        events: ['contact.created'],
      });
      const text = await run('endpoints', 'add', '--url', 'https://other.example.com/');
      const [secretLine] = text.out.split('\n');
      expect(secretLine).toMatch(/^whsec_/);

      const listed = await run('endpoints', 'list', '--json');
      const endpoints = JSON.parse(listed.out);
      expect(endpoints).toHaveLength(2);
      expect(endpoints[0]).toMatchObject({ id: endpoint.id, state: 'active' });
      expect(listed.out).not.toContain('whsec_');
      expect((await run('endpoints', 'list')).out).not.toContain('whsec_');

      const disabled = await run('endpoints', 'disable', '--endpoint', endpoint.id, '--json');
      expect(JSON.parse(disabled.out)).toMatchObject({ id: endpoint.id, state: 'disabled' });

      const rotated = await run(
        'endpoints',
        'rotate-secret',
        '--endpoint',
        endpoint.id,
        '--overlap',
        '600',
        '--json',
      );
      const rotation = JSON.parse(rotated.out);
      expect(rotation).toEqual({
        id: endpoint.id,
        secret: expect.stringMatching(/^whsec_/),
        previousSecretUntil: expect.any(String),
      });
      expect(rotation.secret).not.toBe(endpoint.secret);

      expect((await run('endpoints', 'remove', '--endpoint', endpoint.id)).code).toBe(0);
      expect(JSON.parse((await run('endpoints', 'list', '--json')).out)).toHaveLength(1);

      const refused = await run('endpoints', 'add', '--url', 'ftp://example.com/', '--json');
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.err)).toMatchObject({ error: { code: 'invalid_endpoint_url' } });
      expect((await run('endpoints', 'add')).code).toBe(2);
      const missing = await run('endpoints', 'disable', '--endpoint', 'we_missing');
      expect(missing.code).toBe(1);
      expect(missing.err).toContain('(endpoint_not_found)');
      const overlap = await run('endpoints', 'rotate-secret', '--endpoint', 'x', '--overlap', 'y');
      expect(overlap.code).toBe(2);

      // Every change is audited, by the operator, never with a secret.
      const { rows } = await database().query<{
        action: string;
        actor_type: string;
        target_id: string;
        metadata: Record<string, unknown>;
      }>(
        `SELECT action, actor_type, target_id, metadata FROM audit_entries
          WHERE action LIKE 'endpoint.%' ORDER BY seq`,
      );
      expect(rows.map((row) => [row.action, row.actor_type, row.target_id])).toEqual([
        ['endpoint.created', 'operator', endpoint.id],
        ['endpoint.created', 'operator', endpoints[1].id],
        ['endpoint.disabled', 'operator', endpoint.id],
        ['endpoint.secret_rotated', 'operator', endpoint.id],
        ['endpoint.removed', 'operator', endpoint.id],
      ]);
      expect(rows[0]?.metadata).toEqual({
        url: 'https://hooks.example.com/followup',
        events: ['contact.created'],
      });
      expect(JSON.stringify(rows)).not.toContain('whsec_');
    });

    it('lists deliveries by state and makes one due again', async () => {
      const added = JSON.parse(
        (await run('endpoints', 'add', '--url', 'https://hooks.example.com/', '--json')).out,
      );
      const newId = createIdGenerator();
      await recordOutboxEvent(
        database(),
        { event: 'contact.created', data: { id: 'con_1', firstName: 'Ada', lastName: 'L' } },
        { clock: { now: () => Date.now() }, newId },
      );
      const { fanOutEvents } = await import('../delivery/fan-out.js');
      await fanOutEvents(database(), { clock: { now: () => Date.now() }, newId });
      const listed = JSON.parse((await run('deliveries', 'list', '--json')).out);
      expect(listed).toEqual([
        expect.objectContaining({
          id: expect.stringMatching(/^dlv_/),
          event: 'contact.created',
          endpointId: added.id,
          state: 'pending',
          attempts: 0,
        }),
      ]);
      expect(
        JSON.parse((await run('deliveries', 'list', '--state', 'dead', '--json')).out),
      ).toEqual([]);
      await database().query(`UPDATE deliveries SET state = 'dead', next_attempt_at = NULL`);
      const dead = JSON.parse((await run('deliveries', 'list', '--state', 'dead', '--json')).out);
      expect(dead.map((delivery: { id: string }) => delivery.id)).toEqual([listed[0].id]);
      expect((await run('deliveries', 'list')).out).toContain(listed[0].id);

      const retried = await run('deliveries', 'retry', '--delivery', listed[0].id, '--json');
      expect(JSON.parse(retried.out)).toMatchObject({ id: listed[0].id, state: 'pending' });
      const badState = await run('deliveries', 'list', '--state', 'lost');
      expect(badState.code).toBe(1);
      expect(badState.err).toContain('(invalid_state)');
      const missing = await run('deliveries', 'retry', '--delivery', 'dlv_missing');
      expect(missing.err).toContain('(delivery_not_found)');

      await database().query(
        `INSERT INTO delivery_attempts (delivery_id, started_at, duration_ms, status, error)
         VALUES ($1, now(), 12, 503, NULL)`,
        [listed[0].id],
      );
      const shown = JSON.parse(
        (await run('deliveries', 'show', '--delivery', listed[0].id, '--json')).out,
      );
      expect(shown).toMatchObject({
        id: listed[0].id,
        attempts: [{ status: 503, durationMs: 12, error: null }],
      });
      expect((await run('deliveries', 'show', '--delivery', listed[0].id)).out).toContain('503');
      expect((await run('deliveries', 'show', '--delivery', 'dlv_missing')).err).toContain(
        '(delivery_not_found)',
      );

      await database().query(`UPDATE deliveries SET state = 'dead', next_attempt_at = NULL`);
      const recovered = await run(
        'deliveries',
        'recover',
        '--endpoint',
        added.id,
        '--since',
        '2000-01-01T00:00:00Z',
        '--json',
      );
      expect(JSON.parse(recovered.out)).toMatchObject([{ id: listed[0].id, state: 'pending' }]);
      expect(
        (await run('deliveries', 'recover', '--endpoint', added.id, '--since', 'x')).code,
      ).toBe(2);
      expect((await run('deliveries', 'recover', '--endpoint', added.id)).code).toBe(2);
      const audited = await database().query<{ action: string; target_id: string }>(
        `SELECT action, target_id FROM audit_entries
          WHERE action IN ('delivery.retried', 'deliveries.recovered') ORDER BY seq`,
      );
      expect(audited.rows).toEqual([
        { action: 'delivery.retried', target_id: listed[0].id },
        { action: 'deliveries.recovered', target_id: added.id },
      ]);
    });

    it('exits 1 with the error code for an unknown account or token', async () => {
      const issue = await run('tokens', 'issue', '--account', 'sa_missing', '--json');
      expect(issue.code).toBe(1);
      expect(JSON.parse(issue.err)).toEqual({
        error: { code: 'account_not_found', message: expect.any(String) },
      });
      const revoke = await run('tokens', 'revoke', '--token', 'tok_missing');
      expect(revoke.code).toBe(1);
      expect(revoke.err).toContain('(token_not_found)');
    });
  });

  describe('start', () => {
    // A migrated cluster to start on: 'the data directory' above tests that start creates one.
    const storage = useCliStorage('followup-cli-', { migrated: true });
    const { storageArguments } = storage;

    async function exerciseOperator() {
      const operator = async (...argv: string[]) => {
        const captured = captureIo();
        expect(await runCli([...argv, '--json', ...storageArguments()], captured.io)).toBe(0);
        return JSON.parse(captured.out.join(''));
      };
      const account = await operator('accounts', 'create', '--name', 'ops', '--role', 'MANAGER');
      const issued = await operator('tokens', 'issue', '--account', account.id);
      await testServerTransactionsSettled();
      const authorized = await fetch(`${announcedUrl}/api/audit`, {
        headers: { authorization: `Bearer ${issued.token}` },
      });
      expect(authorized.status).toBe(200);
      const audit = (await authorized.json()) as { entries: { action: string }[] };
      expect(audit.entries.map((entry) => entry.action)).toEqual([
        'service_account.created',
        'token.issued',
      ]);
      // seed works beside the running server too, which serves the contacts at once.
      expect(await operator('seed', '--contacts', '4')).toEqual({ contacts: 4, deals: 2 });
      const counted = await fetch(`${announcedUrl}/api/contacts/count`, {
        headers: { authorization: `Bearer ${issued.token}` },
      });
      expect(await counted.json()).toEqual({ count: 4 });
      await operator('tokens', 'revoke', '--token', issued.id);
      const answer = async () =>
        (
          await fetch(`${announcedUrl}/api/audit`, {
            headers: { authorization: `Bearer ${issued.token}` },
          })
        ).json();
      if (testDriver === 'pglite') {
        // Revoked through the server's own operator channel: refused at once.
        expect(await answer()).toMatchObject({ code: 'token_revoked' });
      } else {
        // Revoked by another process: the server hears token_revoked within a second.
        await vi.waitFor(
          async () => expect(await answer()).toMatchObject({ code: 'token_revoked' }),
          {
            timeout: 10_000,
            interval: 20,
          },
        );
      }
    }
    let announcedUrl = '';

    it('listens, answers, and shuts down gracefully on its signal', async () => {
      const controller = new AbortController();
      const { io, firstLine } = captureIo({}, controller.signal);
      const exit = runCli(['start', '--port', '0', '--json', ...storageArguments()], io);
      const announced = JSON.parse(await firstLine) as { url: string; driver: string };
      expect(announced.driver).toBe(testDriver);
      expect(announced.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      announcedUrl = announced.url;

      const health = await fetch(`${announced.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('x-request-id')).toMatch(/^req_/);
      const audit = await fetch(`${announced.url}/api/audit`);
      expect(audit.status).toBe(401);
      expect(await audit.json()).toMatchObject({ code: 'token_missing' });

      if (testDriver === 'pglite') {
        // The running server owns its data directory: a second process must not open it.
        const second = captureIo();
        expect(
          await runCli(['start', '--port', '0', '--data-dir', storage.dataDir()], second.io),
        ).toBe(1);
        expect(second.err.join('')).toContain('data_directory_locked');
        // Operator commands reach the running server through its loopback channel.
        const channelPath = join(storage.dataDir(), OPERATOR_CHANNEL_FILE);
        expect((await stat(channelPath)).mode & 0o777).toBe(0o600);
        const channel = JSON.parse(await readFile(channelPath, 'utf8'));
        // A Unix socket in the data directory, owner-only: no port any local user could take.
        expect(channel.url).toBeUndefined();
        expect(channel.socket).toBe(join(storage.dataDir(), OPERATOR_SOCKET_FILE));
        const socketStat = await stat(channel.socket);
        expect(socketStat.isSocket()).toBe(true);
        expect(socketStat.mode & 0o777).toBe(0o600);
        const intruder = await new Promise<number>((resolve, reject) => {
          const request = httpRequest(
            {
              socketPath: channel.socket,
              path: '/',
              method: 'POST',
              headers: { authorization: 'Bearer guessed' },
            },
            (response) => {
              response.resume();
              resolve(response.statusCode ?? 0);
            },
          );
          request.on('error', reject);
          request.end(JSON.stringify({ command: 'accounts list', values: {} }));
        });
        expect(intruder).toBe(401);
        await exerciseOperator();
        const usage = captureIo();
        expect(await runCli(['tokens', 'issue', ...storageArguments()], usage.io)).toBe(2);
        expect(usage.err.join('')).toContain('--account is required');
      } else {
        // On PostgreSQL the operator works beside the running server, which sees the token.
        await exerciseOperator();
      }

      controller.abort();
      expect(await exit).toBe(0);
      await expect(fetch(`${announced.url}/healthz`)).rejects.toThrow();
      if (testDriver === 'pglite') {
        await expect(stat(join(storage.dataDir(), LOCK_FILE_NAME))).rejects.toMatchObject({
          code: 'ENOENT',
        });
        await expect(stat(join(storage.dataDir(), OPERATOR_CHANNEL_FILE))).rejects.toMatchObject({
          code: 'ENOENT',
        });
        await expect(stat(join(storage.dataDir(), OPERATOR_SOCKET_FILE))).rejects.toMatchObject({
          code: 'ENOENT',
        });
      }
    });

    it('delivers a new contact to an endpoint added beside the running server, retrying on the schedule', async () => {
      const hook = await startSubscriber([{ status: 500 }, { status: 200 }]);
      const controller = new AbortController();
      const { io, firstLine } = captureIo({ DELIVERY_RETRY_DELAYS: '0.05' }, controller.signal);
      const exit = runCli(
        ['start', '--port', '0', '--json', '--allow-private-endpoints', ...storageArguments()],
        io,
      );
      try {
        const { url } = JSON.parse(await firstLine) as { url: string };
        const operator = async (...argv: string[]) => {
          const captured = captureIo();
          expect(await runCli([...argv, '--json', ...storageArguments()], captured.io)).toBe(0);
          return JSON.parse(captured.out.join(''));
        };
        const endpoint = await operator('endpoints', 'add', '--url', hook.url);
        const account = await operator('accounts', 'create', '--name', 'crm', '--role', 'AGENT');
        const { token } = await operator('tokens', 'issue', '--account', account.id);
        const created = await fetch(`${url}/api/contacts`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ firstName: 'Grace', lastName: 'Hopper' }),
        });
        expect(created.status).toBe(201);
        const contact = (await created.json()) as { id: string };
        await hook.waitFor(2);
        const [first, second] = hook.received;
        expect(second?.headers['x-service-delivery']).toBe(first?.headers['x-service-delivery']);
        const body = JSON.parse(second?.body ?? '{}');
        expect(body.data).toMatchObject({ id: contact.id, firstName: 'Grace', lastName: 'Hopper' });
        expect(() =>
          verifySignature(second?.body ?? '', second?.headers['x-service-signature'] as string, {
            secret: endpoint.secret,
          }),
        ).not.toThrow();
        // The attempt is recorded after the answer: wait for the record, not for a time.
        let deliveries: { id: string; state: string; attempts: number }[] = [];
        while (deliveries[0]?.state !== 'delivered') {
          deliveries = await operator('deliveries', 'list');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(deliveries).toMatchObject([{ id: body.id, state: 'delivered', attempts: 2 }]);
      } finally {
        controller.abort();
        expect(await exit).toBe(0);
        await hook.close();
      }
    });

    it('refuses to open the inbox without a secret beyond loopback, unless --allow-open-inbox', async () => {
      for (const [argv, env] of [
        [['--host', '0.0.0.0'], {}],
        [['--host', '::'], {}],
        [['--host', '192.0.2.10'], { INBOX_WEBHOOK_SECRET: '' }],
        [[], { HOST: '0.0.0.0' }],
      ] as const) {
        const { io, err } = captureIo({ ...env });
        expect(await runCli(['start', '--port', '0', ...argv, ...storageArguments()], io)).toBe(2);
        expect(err.join('')).toContain('set INBOX_WEBHOOK_SECRET, or pass --allow-open-inbox');
      }
      // Past that check with the flag, or the variable, or a secret (stopped by the next one).
      for (const [argv, env] of [
        [['--allow-open-inbox'], {}],
        [[], { ALLOW_OPEN_INBOX: 'true' }],
        [[], { INBOX_WEBHOOK_SECRET: 's3cret' }],
      ] as const) {
        const { io, err } = captureIo({ ...env });
        const code = await runCli(
          ['start', '--host', '0.0.0.0', '--delivery-timeout', '0', ...argv, ...storageArguments()],
          io,
        );
        expect(code).toBe(2);
        expect(err.join('')).toContain('--delivery-timeout is a number of seconds');
      }
    });

    it('sizes the PostgreSQL pool with --database-connections or DATABASE_CONNECTIONS, and refuses one that is not a size before opening anything', async () => {
      for (const [argv, env] of [
        [['--database-connections', '0'], {}],
        [['--database-connections', 'many'], {}],
        [['--database-connections', '1001'], {}],
        [[], { DATABASE_CONNECTIONS: '2.5' }],
      ] as const) {
        for (const command of [
          ['start', '--port', '0'],
          ['accounts', 'list'],
        ]) {
          const { io, err, out } = captureIo({ ...env });
          expect(await runCli([...command, ...argv, ...storageArguments()], io)).toBe(2);
          expect(err.join('')).toBe(
            "followup-server: --database-connections (DATABASE_CONNECTIONS) is a whole number from 1 to 1000. Run 'followup-server --help' for usage.\n",
          );
          expect(out).toEqual([]);
        }
      }
      // One connection for queries is enough: the listeners hold connections of their own.
      const created = captureIo();
      expect(
        await runCli(
          [
            'accounts',
            'create',
            '--name',
            'small-pool',
            '--role',
            'READONLY',
            '--json',
            '--database-connections',
            '1',
            ...storageArguments(),
          ],
          created.io,
        ),
      ).toBe(0);
      const listed = captureIo({ DATABASE_CONNECTIONS: '1' });
      expect(await runCli(['accounts', 'list', '--json', ...storageArguments()], listed.io)).toBe(
        0,
      );
      expect(JSON.parse(listed.out.join(''))).toEqual(
        expect.arrayContaining([expect.objectContaining({ name: 'small-pool' })]),
      );
    });

    it('refuses a retry schedule, a delivery timeout or a delivery concurrency that is not one', async () => {
      const { io, err } = captureIo();
      const code = await runCli(
        ['start', '--port', '0', '--delivery-retry-delays', '1,soon', ...storageArguments()],
        io,
      );
      expect(code).toBe(2);
      expect(err.join('')).toContain(
        '--delivery-retry-delays (DELIVERY_RETRY_DELAYS): Retry delay #2',
      );
      const concurrency = captureIo({ DELIVERY_CONCURRENCY: '0' });
      expect(await runCli(['start', '--port', '0', ...storageArguments()], concurrency.io)).toBe(2);
      expect(concurrency.err.join('')).toContain(
        '--delivery-concurrency (DELIVERY_CONCURRENCY) is a whole number of attempts in flight, from 1 to 1000',
      );
      const timeout = captureIo();
      expect(
        await runCli(['start', '--delivery-timeout', '0', ...storageArguments()], timeout.io),
      ).toBe(2);
      expect(timeout.err.join('')).toContain('--delivery-timeout is a number of seconds');
    });
  });
});
