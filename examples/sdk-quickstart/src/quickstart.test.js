// The SDK's integration tests against the reference server, started as a user starts it
// (through `followup-server start`), on embedded PGlite and, when FOLLOWUP_TEST_DATABASE_URL is
// set, on PostgreSQL. They make no assumption about data already in the database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { operator, startServer } from '@followup/example-support';
import {
  AuthenticationError,
  ConflictError,
  FollowUp,
  NotFoundError,
  PermissionDeniedError,
  ValidationError,
} from '@followup/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const INBOX_SECRET = 'integration-inbox-secret';
const databaseUrl = process.env.FOLLOWUP_TEST_DATABASE_URL;
if (process.env.CI && !databaseUrl) {
  throw new Error('CI must run these tests on PostgreSQL too: set FOLLOWUP_TEST_DATABASE_URL.');
}
const drivers = [{ name: 'pglite' }, ...(databaseUrl ? [{ name: 'postgres', databaseUrl }] : [])];

/** The service account id embedded in a token, `hns_<id>.<secret>`. */
const accountOf = (token) => token.slice(4, token.indexOf('.'));

describe.each(drivers)('the SDK against followup-server on $name', ({ name, databaseUrl }) => {
  let dataDir;
  let storage;
  let server;
  let client;

  // On PostgreSQL the server gets a schema of its own (through the connection string's
  // search_path), dropped afterwards, so that runs and other suites never see each other's rows.
  const schema = `example_sdk_${process.pid}_${Date.now()}`;
  const admin = async (sql) => {
    const connection = new pg.Client({ connectionString: databaseUrl });
    await connection.connect();
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
  };

  // The audit log's cursor walk shows an entry once every transaction older than its own has
  // ended, anywhere on the PostgreSQL server (other suites' included): wait for that before a
  // walk that expects the latest entries, never for a time. Nothing to wait for on PGlite.
  const transactionsSettled = async () => {
    if (!databaseUrl) return;
    const connection = new pg.Client({ connectionString: databaseUrl });
    await connection.connect();
    try {
      const { rows } = await connection.query(
        'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next',
      );
      for (let round = 0; round < 3_000; round += 1) {
        const settled = await connection.query(
          'SELECT pg_snapshot_xmin(pg_current_snapshot()) >= $1::xid8 AS settled',
          [rows[0].next],
        );
        if (settled.rows[0].settled) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('A transaction older than the last audit entry never ended.');
    } finally {
      await connection.end();
    }
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'followup-integration-'));
    if (databaseUrl) {
      await admin(`CREATE SCHEMA ${schema}`);
      const url = new URL(databaseUrl);
      url.searchParams.set('options', `-c search_path=${schema}`);
      storage = { databaseUrl: url.href };
    } else {
      storage = { dataDir: join(dataDir, 'data') };
    }
    server = await startServer(storage, { INBOX_WEBHOOK_SECRET: INBOX_SECRET });
    client = new FollowUp({ token: server.token, baseUrl: server.url, maxRetries: 0 });
  });

  afterAll(async () => {
    await server?.stop();
    if (databaseUrl) await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps its rows where it was told to', async () => {
    if (!databaseUrl) return expect(server.driver).toBe('pglite');
    const connection = new pg.Client({ connectionString: databaseUrl });
    await connection.connect();
    try {
      const { rows } = await connection.query(
        `SELECT count(*)::int AS n FROM ${schema}.service_accounts`,
      );
      expect(rows[0].n).toBeGreaterThanOrEqual(1);
    } finally {
      await connection.end();
    }
  });

  it('runs on the requested storage', () => {
    expect(server.driver).toBe(name);
  });

  it('walks the audit log, cursor by cursor, and finds the demo account being set up', async () => {
    const account = accountOf(server.token);
    const seen = new Set();
    const actions = [];
    await transactionsSettled();
    for await (const page of client.audit.list({ limit: 1 }).pages()) {
      for (const entry of page.items) {
        expect(seen.has(entry.id)).toBe(false);
        seen.add(entry.id);
        if (entry.target.id === account || entry.metadata?.accountId === account) {
          actions.push(entry.action);
        }
      }
    }
    expect(actions).toContain('service_account.created');
    expect(actions).toContain('token.issued');
  });

  it('stores an inbox message sent with the shared secret, and lists it', async () => {
    const subject = `Integration ${name} ${Date.now()}`;
    const { id } = await client.inbox.send(
      { from: 'ada@example.com', subject, text: 'Call me on Tuesday.' },
      { secret: INBOX_SECRET },
    );
    expect(id).toMatch(/^msg_/);
    const found = [];
    for await (const message of client.messages.list({ limit: 200 })) {
      if (message.id === id) found.push(message);
    }
    expect(found).toEqual([
      expect.objectContaining({
        id,
        from: 'ada@example.com',
        subject,
        text: 'Call me on Tuesday.',
      }),
    ]);
    const refused = await client.inbox
      .send({ from: 'eve@example.com', subject: 'x' }, { secret: 'not-the-secret' })
      .catch((error) => error);
    expect(AuthenticationError.isInstance(refused)).toBe(true);
    expect(refused.code).toBe('webhook_secret_invalid');
  });

  it('tells a wrong secret and a revoked token apart, and never answers 403 for them', async () => {
    const wrong = new FollowUp({
      token: `hns_${accountOf(server.token)}.${'A'.repeat(43)}`,
      baseUrl: server.url,
      maxRetries: 0,
    });
    const invalid = await wrong.audit.list().catch((error) => error);
    expect(AuthenticationError.isInstance(invalid)).toBe(true);
    expect(invalid).toMatchObject({ status: 401, code: 'token_invalid' });
    expect(invalid.requestId).toEqual(expect.any(String));

    const issued = await operator(storage, [
      'tokens',
      'issue',
      '--account',
      accountOf(server.token),
    ]);
    const second = new FollowUp({ token: issued.token, baseUrl: server.url, maxRetries: 0 });
    await second.audit.list();
    await operator(storage, ['tokens', 'revoke', '--token', issued.id]);
    const revoked = await second.audit.list().catch((error) => error);
    expect(AuthenticationError.isInstance(revoked)).toBe(true);
    expect(revoked).toMatchObject({ status: 401, code: 'token_revoked' });
    // The revocation is in the audit log, and the first token still works (rotation).
    const actions = [];
    await transactionsSettled();
    for await (const entry of client.audit.list({ limit: 200 })) {
      if (entry.target.id === issued.id) actions.push(entry.action);
    }
    expect(actions).toEqual(['token.issued', 'token.revoked']);
  });

  it("enforces the role's capabilities: a READONLY account reads messages but not the audit log", async () => {
    const account = await operator(storage, [
      'accounts',
      'create',
      '--name',
      `readonly-${name}`,
      '--role',
      'READONLY',
    ]);
    const { token } = await operator(storage, ['tokens', 'issue', '--account', account.id]);
    const reader = new FollowUp({ token, baseUrl: server.url, maxRetries: 0 });
    await expect(reader.messages.list({ limit: 1 })).resolves.toBeDefined();
    const denied = await reader.audit.list().catch((error) => error);
    expect(PermissionDeniedError.isInstance(denied)).toBe(true);
    expect(denied).toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('creates, pages through, counts, updates and deletes contacts', async () => {
    const tag = `${name}-${Date.now()}`;
    const before = await client.contacts.count();
    const created = [];
    for (let index = 0; index < 7; index++) {
      created.push(
        await client.contacts.create({
          firstName: `Ada${index}`,
          lastName: tag,
          lifecycle: 'LEAD',
        }),
      );
    }
    expect(created.every((contact) => contact.id.startsWith('con_'))).toBe(true);
    expect(await client.contacts.count()).toBe(before + 7);

    // Pages of 2: every contact exactly once, in creation order, across four requests or more.
    const seen = [];
    let pages = 0;
    for await (const page of client.contacts.list({ limit: 2 }).pages()) {
      pages++;
      seen.push(
        ...page.items.filter((contact) => contact.lastName === tag).map((contact) => contact.id),
      );
    }
    expect(seen).toEqual(created.map((contact) => contact.id));
    expect(pages).toBeGreaterThanOrEqual(4);

    const updated = await client.contacts.update(created[0].id, { lifecycle: 'PATIENT' });
    expect(updated).toMatchObject({ id: created[0].id, lifecycle: 'PATIENT' });
    expect(await client.contacts.get(created[0].id)).toEqual(updated);

    await client.contacts.delete(created[0].id);
    const gone = await client.contacts.get(created[0].id).catch((error) => error);
    expect(NotFoundError.isInstance(gone)).toBe(true);
    expect(await client.contacts.count()).toBe(before + 6);
  });

  it('creates once for a repeated Idempotency-Key, and refuses the key with another body', async () => {
    const idempotencyKey = `quickstart-${name}-${Date.now()}`;
    const body = { firstName: 'Grace', lastName: `Hopper-${name}` };
    const first = await client.contacts.create(body, { idempotencyKey });
    const again = await client.contacts.create(body, { idempotencyKey });
    expect(again).toEqual(first);
    const conflict = await client.contacts
      .create({ ...body, firstName: 'Other' }, { idempotencyKey })
      .catch((error) => error);
    expect(ConflictError.isInstance(conflict)).toBe(true);
    expect(conflict).toMatchObject({ status: 409, code: 'idempotency_conflict' });
  });

  it('refuses an invalid contact with the fields at fault', async () => {
    const invalid = await client.contacts
      .create({ firstName: '', lastName: 'Lovelace', email: 'not-an-address' })
      .catch((error) => error);
    expect(ValidationError.isInstance(invalid)).toBe(true);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
  });

  it('maps validation errors and unknown routes to their classes', async () => {
    // A message without a subject: the server answers 400 with the fields at fault.
    const invalid = await client.inbox
      .send({ from: 'ada@example.com' }, { secret: INBOX_SECRET })
      .catch((error) => error);
    expect(ValidationError.isInstance(invalid)).toBe(true);
    expect(invalid).toMatchObject({ status: 400, code: 'validation_failed' });
    const missing = await client.contacts.get('con_does_not_exist').catch((error) => error);
    expect(NotFoundError.isInstance(missing)).toBe(true);
    expect(missing.status).toBe(404);
  });
});
