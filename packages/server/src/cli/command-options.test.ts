import { describe, expect, it } from 'vitest';
import { runCliOn } from '../../test/support/cli-io.js';
import { useTestDatabase } from '../../test/support/database.js';
import { fanOutEvents } from '../delivery/fan-out.js';
import { createIdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { parseToken } from '../tokens/token-format.js';
import { createSessionStore } from '../users/sessions.js';
import { operatorCommandOptions, operatorCommands } from './operator-commands.js';
import { GLOBAL_OPTIONS, type OptionName, optionSpec } from './usage.js';

type Run = (...argv: string[]) => Promise<{ code: number; out: string; err: string }>;
// biome-ignore lint/suspicious/noExplicitAny: the --json output of a command, read by the tests
type Json = any;

/**
 * What one option of one operator command does, shown by running the command with the option and
 * checking what changed: `<command> --<option>` for every option of `operatorCommandOptions`.
 */
type FlagEffect = (context: {
  run: Run;
  json: (...argv: string[]) => Promise<Json>;
  database: Database;
}) => Promise<void>;

const clock = { now: () => Date.now() };

async function account(json: (...argv: string[]) => Promise<Json>, name = 'a'): Promise<string> {
  return (await json('accounts', 'create', '--name', name, '--role', 'AGENT')).id;
}

/** Two endpoints and one event: one pending delivery to each, the first endpoint's first. */
async function twoDeliveries(
  json: (...argv: string[]) => Promise<Json>,
  database: Database,
): Promise<{ first: string; second: string; deliveries: Json[] }> {
  const first = (await json('endpoints', 'add', '--url', 'https://one.example.com/')).id;
  const second = (await json('endpoints', 'add', '--url', 'https://two.example.com/')).id;
  const newId = createIdGenerator();
  await recordOutboxEvent(
    database,
    { event: 'contact.created', data: { id: 'con_1', firstName: 'Ada', lastName: 'L' } },
    { clock, newId },
  );
  await fanOutEvents(database, { clock, newId });
  const deliveries = await json('deliveries', 'list');
  expect(deliveries).toHaveLength(2);
  return { first, second, deliveries };
}

const ids = (rows: Json[]) => rows.map((row: { id: string }) => row.id);

const flagEffects: Record<string, FlagEffect> = {
  async 'accounts create --name'({ json }) {
    expect(await json('accounts', 'create', '--name', 'billing', '--role', 'AGENT')).toMatchObject({
      name: 'billing',
    });
  },
  async 'accounts create --role'({ json }) {
    expect(await json('accounts', 'create', '--name', 'x', '--role', 'READONLY')).toMatchObject({
      role: 'READONLY',
    });
  },
  async 'accounts list --limit'({ json }) {
    for (const name of ['a', 'b', 'c']) await account(json, name);
    expect(await json('accounts', 'list', '--limit', '2')).toHaveLength(2);
  },
  async 'accounts list --offset'({ json }) {
    for (const name of ['a', 'b', 'c']) await account(json, name);
    const all = ids(await json('accounts', 'list'));
    expect(ids(await json('accounts', 'list', '--offset', '2'))).toEqual(all.slice(2));
  },
  async 'accounts disable --account'({ json }) {
    const kept = await account(json, 'kept');
    const disabled = await account(json, 'gone');
    await json('accounts', 'disable', '--account', disabled);
    const states = Object.fromEntries(
      (await json('accounts', 'list')).map((row: Json) => [row.id, row.disabledAt !== null]),
    );
    expect(states).toEqual({ [kept]: false, [disabled]: true });
  },
  async 'tokens issue --account'({ json }) {
    await account(json, 'other');
    const id = await account(json);
    expect(parseToken((await json('tokens', 'issue', '--account', id)).token)?.accountId).toBe(id);
  },
  async 'tokens issue --ttl'({ json }) {
    const id = await account(json);
    await json('tokens', 'issue', '--account', id, '--ttl', '600');
    const [token] = await json('tokens', 'list', '--account', id);
    expect(Date.parse(token.expiresAt) - Date.parse(token.createdAt)).toBe(600_000);
  },
  async 'tokens issue --label'({ json }) {
    const id = await account(json);
    await json('tokens', 'issue', '--account', id, '--label', 'nightly export');
    expect(await json('tokens', 'list', '--account', id)).toMatchObject([
      { label: 'nightly export' },
    ]);
  },
  async 'tokens list --account'({ json }) {
    const mine = await account(json, 'mine');
    const other = await account(json, 'other');
    const issued = await json('tokens', 'issue', '--account', mine);
    await json('tokens', 'issue', '--account', other);
    expect(ids(await json('tokens', 'list', '--account', mine))).toEqual([issued.id]);
  },
  async 'tokens list --limit'({ json }) {
    const id = await account(json);
    for (let index = 0; index < 3; index++) await json('tokens', 'issue', '--account', id);
    expect(await json('tokens', 'list', '--account', id, '--limit', '2')).toHaveLength(2);
  },
  async 'tokens list --offset'({ json }) {
    const id = await account(json);
    for (let index = 0; index < 3; index++) await json('tokens', 'issue', '--account', id);
    const all = ids(await json('tokens', 'list', '--account', id));
    expect(ids(await json('tokens', 'list', '--account', id, '--offset', '1'))).toEqual(
      all.slice(1),
    );
  },
  async 'tokens revoke --token'({ json }) {
    const id = await account(json);
    const revoked = await json('tokens', 'issue', '--account', id);
    const kept = await json('tokens', 'issue', '--account', id);
    await json('tokens', 'revoke', '--token', revoked.id);
    const states = Object.fromEntries(
      (await json('tokens', 'list', '--account', id)).map((row: Json) => [row.id, row.state]),
    );
    expect(states).toEqual({ [revoked.id]: 'revoked', [kept.id]: 'active' });
  },
  async 'tokens roll --token'({ json }) {
    const id = await account(json);
    const rolled = await json('tokens', 'issue', '--account', id);
    await json('tokens', 'issue', '--account', id);
    expect((await json('tokens', 'roll', '--token', rolled.id)).previous.id).toBe(rolled.id);
  },
  async 'tokens roll --grace'({ json }) {
    const id = await account(json);
    const rolled = await json('tokens', 'issue', '--account', id);
    const { id: replacement } = await json(
      'tokens',
      'roll',
      '--token',
      rolled.id,
      '--grace',
      '90s',
    );
    const tokens = new Map<string, Json>(
      (await json('tokens', 'list', '--account', id)).map((row: Json) => [row.id, row]),
    );
    const previousEnd = Date.parse(tokens.get(rolled.id).expiresAt);
    expect(previousEnd - Date.parse(tokens.get(replacement).createdAt)).toBe(90_000);
  },
  async 'seed --contacts'({ json, database }) {
    expect(await json('seed', '--contacts', '7')).toMatchObject({ contacts: 7 });
    const { rows } = await database.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM contacts',
    );
    expect(rows[0]?.count).toBe(7);
  },
  async 'contacts erase --contact'({ json, database }) {
    await json('seed', '--contacts', '2');
    const { rows } = await database.query<{ id: string }>('SELECT id FROM contacts ORDER BY id');
    const [erased, kept] = rows.map((row) => row.id);
    expect(await json('contacts', 'erase', '--contact', String(erased))).toMatchObject({
      id: erased,
    });
    const left = await database.query<{ id: string }>('SELECT id FROM contacts');
    expect(left.rows.map((row) => row.id)).toEqual([kept]);
  },
  async 'endpoints add --url'({ json }) {
    await json('endpoints', 'add', '--url', 'https://hooks.example.com/in');
    expect(await json('endpoints', 'list')).toMatchObject([
      { url: 'https://hooks.example.com/in' },
    ]);
  },
  async 'endpoints add --events'({ json }) {
    await json('endpoints', 'add', '--url', 'https://a.example.com/', '--events', 'deal.created');
    expect(await json('endpoints', 'list')).toMatchObject([{ events: ['deal.created'] }]);
  },
  async 'endpoints list --limit'({ json }) {
    for (const host of ['a', 'b'])
      await json('endpoints', 'add', '--url', `https://${host}.example.com/`);
    expect(await json('endpoints', 'list', '--limit', '1')).toHaveLength(1);
  },
  async 'endpoints list --offset'({ json }) {
    for (const host of ['a', 'b'])
      await json('endpoints', 'add', '--url', `https://${host}.example.com/`);
    const all = ids(await json('endpoints', 'list'));
    expect(ids(await json('endpoints', 'list', '--offset', '1'))).toEqual(all.slice(1));
  },
  async 'endpoints disable --endpoint'({ json }) {
    const kept = (await json('endpoints', 'add', '--url', 'https://a.example.com/')).id;
    const disabled = (await json('endpoints', 'add', '--url', 'https://b.example.com/')).id;
    await json('endpoints', 'disable', '--endpoint', disabled);
    const states = Object.fromEntries(
      (await json('endpoints', 'list')).map((row: Json) => [row.id, row.state]),
    );
    expect(states).toEqual({ [kept]: 'active', [disabled]: 'disabled' });
  },
  async 'endpoints enable --endpoint'({ json }) {
    const id = (await json('endpoints', 'add', '--url', 'https://a.example.com/')).id;
    await json('endpoints', 'disable', '--endpoint', id);
    await json('endpoints', 'enable', '--endpoint', id);
    expect(await json('endpoints', 'list')).toMatchObject([{ id, state: 'active' }]);
  },
  async 'endpoints test --endpoint'({ json }) {
    await json('endpoints', 'add', '--url', 'https://a.example.com/');
    const id = (await json('endpoints', 'add', '--url', 'https://b.example.com/')).id;
    const queued = await json('endpoints', 'test', '--endpoint', id);
    expect(await json('deliveries', 'list')).toMatchObject([
      { id: queued.deliveryId, endpointId: id, event: 'webhook.test' },
    ]);
  },
  async 'endpoints rotate-secret --endpoint'({ json }) {
    const added = await json('endpoints', 'add', '--url', 'https://a.example.com/');
    const rotated = await json('endpoints', 'rotate-secret', '--endpoint', added.id);
    expect(rotated.id).toBe(added.id);
    expect(rotated.secret).not.toBe(added.secret);
  },
  async 'endpoints rotate-secret --overlap'({ json }) {
    const id = (await json('endpoints', 'add', '--url', 'https://a.example.com/')).id;
    // Without --overlap the old secret signs for 24 hours; with 0 it stops at once.
    expect(
      (await json('endpoints', 'rotate-secret', '--endpoint', id)).previousSecretUntil,
    ).not.toBeNull();
    expect(
      (await json('endpoints', 'rotate-secret', '--endpoint', id, '--overlap', '0'))
        .previousSecretUntil,
    ).toBeNull();
  },
  async 'endpoints remove --endpoint'({ json }) {
    const kept = (await json('endpoints', 'add', '--url', 'https://a.example.com/')).id;
    const removed = (await json('endpoints', 'add', '--url', 'https://b.example.com/')).id;
    await json('endpoints', 'remove', '--endpoint', removed);
    expect(ids(await json('endpoints', 'list'))).toEqual([kept]);
  },
  async 'endpoints portal-link --subscriber'({ json, database }) {
    const link = await json('endpoints', 'portal-link', '--subscriber', 'acme');
    expect(link.url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/portal\/link\/[A-Za-z0-9_-]{43}$/);
    const { rows } = await database.query<{ subscriber: string; actor_type: string }>(
      `SELECT l.subscriber, a.actor_type FROM portal_links AS l
         JOIN audit_entries AS a ON a.action = 'portal_link.created' AND a.target_id = l.subscriber`,
    );
    expect(rows).toEqual([{ subscriber: 'acme', actor_type: 'operator' }]);
  },
  async 'endpoints portal-link --expires-in-minutes'({ json }) {
    const before = Date.now();
    const link = await json(
      'endpoints',
      'portal-link',
      '--subscriber',
      'acme',
      '--expires-in-minutes',
      '5',
    );
    const expiresIn = Date.parse(link.expiresAt) - before;
    expect(expiresIn).toBeGreaterThan(4 * 60_000);
    expect(expiresIn).toBeLessThanOrEqual(5 * 60_000 + 60_000);
  },
  async 'endpoints portal-link --public-url'({ json }) {
    const link = await json(
      'endpoints',
      'portal-link',
      '--subscriber',
      'acme',
      '--public-url',
      'https://crm.example.org',
    );
    expect(link.url).toMatch(/^https:\/\/crm\.example\.org\/portal\/link\//);
  },
  async 'deliveries list --state'({ json, database }) {
    const { deliveries } = await twoDeliveries(json, database);
    await database.query(
      `UPDATE deliveries SET state = 'dead', next_attempt_at = NULL WHERE id = $1`,
      [deliveries[1].id],
    );
    expect(ids(await json('deliveries', 'list', '--state', 'dead'))).toEqual([deliveries[1].id]);
    expect(ids(await json('deliveries', 'list', '--state', 'pending'))).toEqual([deliveries[0].id]);
  },
  async 'deliveries list --endpoint'({ json, database }) {
    const { first, second } = await twoDeliveries(json, database);
    for (const endpoint of [first, second]) {
      expect(await json('deliveries', 'list', '--endpoint', endpoint)).toMatchObject([
        { endpointId: endpoint },
      ]);
    }
    expect(await json('deliveries', 'list', '--endpoint', 'we_none')).toEqual([]);
  },
  async 'deliveries list --limit'({ json, database }) {
    const { deliveries } = await twoDeliveries(json, database);
    expect(ids(await json('deliveries', 'list', '--limit', '1'))).toEqual([deliveries[0].id]);
  },
  async 'deliveries list --offset'({ json, database }) {
    const { deliveries } = await twoDeliveries(json, database);
    expect(ids(await json('deliveries', 'list', '--offset', '1'))).toEqual([deliveries[1].id]);
  },
  async 'deliveries show --delivery'({ json, database }) {
    const { deliveries } = await twoDeliveries(json, database);
    expect(await json('deliveries', 'show', '--delivery', deliveries[1].id)).toMatchObject({
      id: deliveries[1].id,
      attempts: [],
    });
  },
  async 'deliveries retry --delivery'({ json, database }) {
    const { deliveries } = await twoDeliveries(json, database);
    await database.query(`UPDATE deliveries SET state = 'dead', next_attempt_at = NULL`);
    await json('deliveries', 'retry', '--delivery', deliveries[0].id);
    expect(ids(await json('deliveries', 'list', '--state', 'pending'))).toEqual([deliveries[0].id]);
  },
  async 'deliveries recover --endpoint'({ json, database }) {
    const { first, deliveries } = await twoDeliveries(json, database);
    await database.query(`UPDATE deliveries SET state = 'dead', next_attempt_at = NULL`);
    const recovered = await json(
      'deliveries',
      'recover',
      '--endpoint',
      first,
      '--since',
      '2000-01-01T00:00:00Z',
    );
    expect(ids(recovered)).toEqual([deliveries[0].id]);
  },
  async 'deliveries recover --since'({ json, database }) {
    const { first } = await twoDeliveries(json, database);
    await database.query(`UPDATE deliveries SET state = 'dead', next_attempt_at = NULL`);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect(await json('deliveries', 'recover', '--endpoint', first, '--since', later)).toEqual([]);
    expect(
      await json('deliveries', 'recover', '--endpoint', first, '--since', '2000-01-01T00:00:00Z'),
    ).toHaveLength(1);
  },
  async 'prune --receipt-retention'({ json, database }) {
    await database.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ('rcpt_1', 'athenahealth', 'valid', '\\x', '{}', now() - interval '10 days')`,
    );
    expect(await json('prune')).toMatchObject({ ehrReceipts: 0 });
    expect(await json('prune', '--receipt-retention', '5')).toMatchObject({ ehrReceipts: 1 });
  },
  async 'prune --delivery-retention'({ json, database }) {
    await twoDeliveries(json, database);
    await database.query(
      `UPDATE deliveries SET state = 'dead', next_attempt_at = NULL,
              created_at = now() - interval '10 days'`,
    );
    expect(await json('prune')).toMatchObject({ deliveries: 0 });
    expect(await json('prune', '--delivery-retention', '5')).toMatchObject({ deliveries: 2 });
  },
  async 'prune --tombstone-retention'({ json, database }) {
    await database.query(
      `INSERT INTO contact_tombstones (id, deleted_at) VALUES ('con_1', now() - interval '20 days')`,
    );
    expect(await json('prune')).toMatchObject({ contactTombstones: 0 });
    expect(await json('prune', '--tombstone-retention', '7')).toMatchObject({
      contactTombstones: 1,
    });
  },
  async 'receipts list --vendor'({ json, database }) {
    await database.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ('rcpt_1', 'athenahealth', 'valid', '\\x', '{}', now()),
              ('rcpt_2', 'metriport', 'valid', '\\x', '{}', now())`,
    );
    expect(ids(await json('receipts', 'list', '--vendor', 'metriport'))).toEqual(['rcpt_2']);
  },
  async 'receipts list --limit'({ json, database }) {
    await database.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ('rcpt_1', 'akute', 'valid', '\\x', '{}', now() - interval '1 second'),
              ('rcpt_2', 'akute', 'valid', '\\x', '{}', now())`,
    );
    expect(ids(await json('receipts', 'list', '--limit', '1'))).toEqual(['rcpt_1']);
  },
  async 'receipts list --offset'({ json, database }) {
    await database.query(
      `INSERT INTO ehr_receipts (id, vendor, verdict, raw_body, headers, received_at)
       VALUES ('rcpt_1', 'akute', 'valid', '\\x', '{}', now() - interval '1 second'),
              ('rcpt_2', 'akute', 'valid', '\\x', '{}', now())`,
    );
    expect(ids(await json('receipts', 'list', '--offset', '1'))).toEqual(['rcpt_2']);
  },
  async 'users invite --email'({ json }) {
    await json('users', 'invite', '--email', 'ada@example.com', '--role', 'AGENT');
    expect(await json('users', 'list')).toMatchObject([{ email: 'ada@example.com' }]);
  },
  async 'users invite --role'({ json }) {
    await json('users', 'invite', '--email', 'ada@example.com', '--role', 'MANAGER');
    expect(await json('users', 'list')).toMatchObject([{ role: 'MANAGER' }]);
  },
  async 'users invite --name'({ json }) {
    await json(
      'users',
      'invite',
      '--email',
      'ada@example.com',
      '--role',
      'AGENT',
      '--name',
      'Ada L',
    );
    expect(await json('users', 'list')).toMatchObject([{ name: 'Ada L' }]);
  },
  async 'users invite --public-url'({ json }) {
    const invited = await json(
      'users',
      'invite',
      '--email',
      'ada@example.com',
      '--role',
      'AGENT',
      '--public-url',
      'https://crm.example.org',
    );
    expect(invited.signInUrl).toMatch(/^https:\/\/crm\.example\.org\//);
  },
  async 'users disable --user'({ json }) {
    const disabled = (await json('users', 'invite', '--email', 'a@example.com', '--role', 'AGENT'))
      .id;
    const kept = (await json('users', 'invite', '--email', 'b@example.com', '--role', 'AGENT')).id;
    await json('users', 'disable', '--user', disabled);
    const states = Object.fromEntries(
      (await json('users', 'list')).map((row: Json) => [row.id, row.state]),
    );
    expect(states[disabled]).toBe('disabled');
    expect(states[kept]).not.toBe('disabled');
  },
  async 'users role --user'({ json }) {
    const changed = (await json('users', 'invite', '--email', 'a@example.com', '--role', 'AGENT'))
      .id;
    const kept = (await json('users', 'invite', '--email', 'b@example.com', '--role', 'AGENT')).id;
    await json('users', 'role', '--user', changed, '--role', 'READONLY');
    const roles = Object.fromEntries(
      (await json('users', 'list')).map((row: Json) => [row.id, row.role]),
    );
    expect(roles).toEqual({ [changed]: 'READONLY', [kept]: 'AGENT' });
  },
  async 'users role --role'({ json }) {
    const id = (await json('users', 'invite', '--email', 'a@example.com', '--role', 'AGENT')).id;
    expect(await json('users', 'role', '--user', id, '--role', 'MANAGER')).toMatchObject({
      role: 'MANAGER',
    });
  },
  async 'users sessions revoke --user'({ json, database }) {
    const ended = (await json('users', 'invite', '--email', 'a@example.com', '--role', 'AGENT')).id;
    const kept = (await json('users', 'invite', '--email', 'b@example.com', '--role', 'AGENT')).id;
    const sessions = createSessionStore({ database, clock, newId: createIdGenerator() });
    await sessions.start(database, ended);
    await sessions.start(database, kept);
    expect(await json('users', 'sessions', 'revoke', '--user', ended)).toEqual({
      id: ended,
      sessionsEnded: 1,
    });
    const counts = Object.fromEntries(
      (await json('users', 'list')).map((row: Json) => [row.id, row.sessions]),
    );
    expect(counts).toEqual({ [ended]: 0, [kept]: 1 });
  },
};

describe('the options of the operator commands', () => {
  const database = useTestDatabase();
  const run: Run = (...argv) => runCliOn(database(), argv);
  const json = async (...argv: string[]) => {
    const result = await run(...argv, '--json');
    expect(result.err, argv.join(' ')).toBe('');
    expect(result.code, argv.join(' ')).toBe(0);
    return JSON.parse(result.out);
  };

  it('name every command, and each option of each command has an effect tested here', () => {
    expect(Object.keys(operatorCommandOptions).sort()).toEqual(
      Object.keys(operatorCommands).sort(),
    );
    const pairs = Object.entries(operatorCommandOptions).flatMap(([command, options]) =>
      options.map((option) => `${command} --${option}`),
    );
    expect(Object.keys(flagEffects).sort()).toEqual(pairs.sort());
  });

  it.each(Object.entries(flagEffects))('%s', async (_name, effect) => {
    await effect({ run, json, database: database() });
  });

  it('refuse, exit 2, every option the command does not take, before touching the database', async () => {
    const all = Object.keys(optionSpec) as OptionName[];
    for (const [command, options] of Object.entries(operatorCommandOptions)) {
      for (const option of all) {
        if (options.includes(option) || GLOBAL_OPTIONS.includes(option)) continue;
        const value = optionSpec[option].type === 'string' ? ['x'] : [];
        const refused = await run(...command.split(' '), `--${option}`, ...value);
        expect(refused.code, `${command} --${option}`).toBe(2);
        expect(refused.err).toBe(
          `followup-server: ${command} does not take --${option}. Run 'followup-server --help' for usage.\n`,
        );
      }
    }
    const { rows } = await database().query<{ count: number }>(
      'SELECT (SELECT count(*) FROM service_accounts) + (SELECT count(*) FROM webhook_endpoints) AS count',
    );
    expect(Number(rows[0]?.count)).toBe(0);
  });

  it('refuse an option of another command on start, and name them all at once', async () => {
    const refused = await run('start', '--limit', '5', '--endpoint', 'we_1');
    expect(refused.code).toBe(2);
    expect(refused.err).toBe(
      "followup-server: start does not take --limit, --endpoint. Run 'followup-server --help' for usage.\n",
    );
  });
});
