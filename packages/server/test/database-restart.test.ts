import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../src/build-server.js';
import type { Clock } from '../src/clock.js';
import { createDeliveryWorker } from '../src/delivery/delivery-worker.js';
import type { DeliveryWorker } from '../src/delivery/delivery-worker-options.js';
import { createEndpointStore } from '../src/delivery/webhook-endpoints.js';
import { type RecordingReceiver, startRecordingReceiver } from '../src/recording-receiver.js';
import type { Database } from '../src/storage/database.js';
import {
  isDatabaseUnreachable,
  watchDatabaseOutages,
} from '../src/storage/database-reachability.js';
import { migrate } from '../src/storage/migrate.js';
import { openPostgresDatabase } from '../src/storage/postgres-database.js';
import { OUTBOX_CHANNEL } from '../src/stores/outbox-store.js';
import { TOKEN_REVOKED_CHANNEL } from '../src/stores/token-store.js';
import { createAccountStore } from '../src/tokens/account-store.js';
import { testDriver, uniqueSchemaName } from './support/database.js';

const run = promisify(execFile);
const script = (name: string) => fileURLToPath(new URL(`../scripts/${name}`, import.meta.url));
// A cluster of this test's own, never the suite's shared one: it is stopped and started again.
const cluster = {
  FOLLOWUP_TEST_PG_DIR: '/tmp/followup-pg-restart',
  FOLLOWUP_TEST_PG_PORT: '54341',
};
// The scripts install PostgreSQL when it is missing: without its binaries, this test is skipped.
const postgresInstalled =
  existsSync('/usr/lib/postgresql') &&
  readdirSync('/usr/lib/postgresql').some((version) =>
    existsSync(`/usr/lib/postgresql/${version}/bin/pg_ctl`),
  );

// The pid of the cluster this file started, stopped by it and by nothing broader.
let clusterPid = '';

async function startCluster(): Promise<string> {
  const { stdout } = await run('bash', [script('start-test-postgres.sh')], {
    env: { ...process.env, ...cluster },
  });
  const url = /FOLLOWUP_TEST_DATABASE_URL=(\S+)/.exec(stdout)?.[1];
  if (!url) throw new Error(`start-test-postgres.sh printed no URL: ${stdout}`);
  clusterPid = /FOLLOWUP_TEST_PG_STARTED_PID=(\S*)/.exec(stdout)?.[1] ?? '';
  return url;
}

// Stops the cluster this file started (a fast shutdown, by its pid) and waits until it is gone.
async function stopCluster(): Promise<void> {
  if (clusterPid === '') return;
  await run('bash', [script('stop-test-postgres.sh'), clusterPid], {
    env: { ...process.env, ...cluster },
  });
  clusterPid = '';
}

/** Asks `check` every 25 ms until it answers true; fails after `limitMs` (a generous limit). */
async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  limitMs = 30_000,
): Promise<void> {
  const giveUpAt = performance.now() + limitMs;
  while (!(await check())) {
    if (performance.now() > giveUpAt) throw new Error(`still not so after ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

interface LogLine {
  msg: string;
  level: number;
  channel?: string;
}

/** One server instance, wired as `start` wires it: its server, its worker, one outage watch. */
interface Instance {
  app: FastifyInstance;
  database: Database;
  worker: DeliveryWorker;
  logs: LogLine[];
  notifications: { reconnected: boolean }[];
  workerErrors: unknown[];
}

async function startInstance(options: {
  url: string;
  schema: string;
  clock?: Clock;
}): Promise<Instance> {
  const logs: LogLine[] = [];
  const notifications: { reconnected: boolean }[] = [];
  const workerErrors: unknown[] = [];
  const opened = await openPostgresDatabase({
    connectionString: options.url,
    schema: options.schema,
  });
  let app: FastifyInstance | undefined;
  const database = watchDatabaseOutages(opened, () => app?.log);
  await migrate(database);
  const worker = createDeliveryWorker({
    database,
    allowPrivate: true,
    allowInsecure: true,
    // An hour: within this test, only a wake-up makes the worker look, never its poll.
    pollIntervalMs: 3_600_000,
    onNotification: (notification) => notifications.push(notification),
    onError: (error) => workerErrors.push(error),
  });
  app = buildServer({
    database,
    ...(options.clock ? { clock: options.clock } : {}),
    onOutboxEvent: () => worker.wake(),
    logger: { level: 'info', stream: { write: (line) => void logs.push(JSON.parse(line)) } },
  });
  await app.ready();
  return { app, database, worker, logs, notifications, workerErrors };
}

// The database restarts under two running instances: PostgreSQL only (PGlite runs in the process).
describe.skipIf(testDriver !== 'postgres' || !postgresInstalled)(
  'a PostgreSQL restart under two running instances',
  () => {
    const instances: Instance[] = [];
    let receiver: RecordingReceiver | undefined;
    let token = '';
    const accounts = () => createAccountStore({ database: a().database });
    const a = () => instances[0] as Instance;
    const b = () => instances[1] as Instance;

    beforeAll(async () => {
      const url = await startCluster();
      const schema = uniqueSchemaName();
      // A writes; its worker is never started, so that only B's can deliver what A writes.
      instances.push(await startInstance({ url, schema }));
      // B's token cache never lets a token go by age (its clock stands still): only a
      // notification, or its listener's return, makes it forget one.
      const frozenAt = Date.now();
      instances.push(await startInstance({ url, schema, clock: { now: () => frozenAt } }));
      b().worker.start();
      const account = await accounts().createAccount({ name: 'restart', role: 'ADMIN' });
      token = (await accounts().issueToken({ accountId: account.id })).token;
    }, 120_000);
    afterAll(async () => {
      for (const instance of instances) {
        await instance.app.close();
        await instance.worker.close();
        await instance.database.close();
      }
      await receiver?.close();
      await stopCluster();
    }, 120_000);

    const list = (instance: Instance, bearer = token) =>
      instance.app.inject({
        method: 'GET',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${bearer}` },
      });
    const lines = (instance: Instance, message: string, channel?: string) =>
      instance.logs.filter(
        (line) =>
          line.msg.startsWith(message) && (channel === undefined || line.channel === channel),
      );
    // The channels each instance listens on: A's token cache; B's token cache and worker.
    const channelsOf = (instance: Instance) =>
      instance === a() ? [TOKEN_REVOKED_CHANNEL] : [TOKEN_REVOKED_CHANNEL, OUTBOX_CHANNEL];

    it('answers 503 unavailable with Retry-After on both while it is down, logs it once, and both recover on their own', async () => {
      for (const instance of instances) expect((await list(instance)).statusCode).toBe(200);
      await stopCluster();

      for (const instance of instances) {
        for (let request = 0; request < 3; request++) {
          const refused = await list(instance);
          expect(refused.statusCode).toBe(503);
          expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
          expect(refused.headers['retry-after']).toBe('5');
          expect(refused.json()).toMatchObject({ code: 'unavailable', status: 503 });
        }
        const ready = await instance.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(503);
        expect(ready.json()).toMatchObject({ checks: { database: 'failed' } });
        expect(lines(instance, 'database unreachable')).toHaveLength(1);
        expect(lines(instance, 'database unreachable')[0]?.level).toBe(50);
        // Not one error line per request: no request "failed" as a fault of the server.
        expect(lines(instance, 'request failed')).toEqual([]);
      }
      // B's worker, woken while the database is down, fails to look and carries on.
      b().worker.wake();
      await eventually("B's worker told of the outage", () =>
        b().workerErrors.some(isDatabaseUnreachable),
      );
      for (const instance of instances) {
        await eventually('every listener lost', () =>
          channelsOf(instance).every(
            (channel) => lines(instance, 'notification listener lost', channel).length > 0,
          ),
        );
      }

      await startCluster();
      for (const instance of instances) {
        await eventually(
          'requests answered again',
          async () => (await list(instance)).statusCode === 200,
        );
        expect((await list(instance)).statusCode).toBe(200);
        const readyAgain = await instance.app.inject({ method: 'GET', url: '/readyz' });
        expect(readyAgain.statusCode).toBe(200);
        await eventually('every listener back', () =>
          channelsOf(instance).every(
            (channel) => lines(instance, 'notification listener back', channel).length > 0,
          ),
        );
        // Once when it went, once when it came back: not once per request or per attempt.
        expect(lines(instance, 'database unreachable')).toHaveLength(1);
        expect(lines(instance, 'database reachable again')).toHaveLength(1);
        for (const channel of channelsOf(instance)) {
          expect(lines(instance, 'notification listener lost', channel)).toHaveLength(1);
          expect(lines(instance, 'notification listener lost', channel)[0]?.level).toBe(40);
          expect(lines(instance, 'notification listener back', channel)).toHaveLength(1);
        }
      }
      // Back, B's listener woke its worker for whatever it missed.
      expect(b().notifications).toContainEqual({ reconnected: true });
    }, 120_000);

    // After the restart of the test above.
    it("after the restart, a write on A wakes B's worker through its LISTEN, and a revocation on A is refused on B", async () => {
      receiver = await startRecordingReceiver({ clock: { now: () => Date.now() } });
      const endpoint = await createEndpointStore({ database: a().database }).add({
        url: receiver.url,
      });
      receiver.useSecret(endpoint.secret);

      const notifiedBefore = b().notifications.length;
      const created = await a().app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${token}` },
        payload: { firstName: 'Grace', lastName: 'Hopper' },
      });
      expect(created.statusCode).toBe(201);
      const delivered = receiver.nextDelivery();
      const timedOut = new Promise<never>((_resolve, reject) =>
        setTimeout(() => reject(new Error('no delivery within 30 s')), 30_000).unref(),
      );
      // A's worker never runs and B's polls once an hour: only A's notification, heard on B's
      // listening connection made anew after the restart, can have woken B's worker.
      const delivery = await Promise.race([delivered, timedOut]);
      expect(delivery.event.event).toBe('contact.created');
      expect(delivery.event.data).toMatchObject({ id: created.json().id });
      expect(b().notifications.slice(notifiedBefore)).toContainEqual({ reconnected: false });

      // Two tokens B remembers. One is revoked behind the server's back (no notification): B
      // still takes it, from memory, so its cache serves again after the restart. The other is
      // revoked on A, whose notification makes B forget both.
      const account = await accounts().createAccount({ name: 'revoked', role: 'READONLY' });
      const quiet = await accounts().issueToken({ accountId: account.id });
      const told = await accounts().issueToken({ accountId: account.id });
      for (const issued of [quiet, told])
        expect((await list(b(), issued.token)).statusCode).toBe(200);
      await a().database.query('UPDATE tokens SET revoked_at = now() WHERE id = $1', [quiet.id]);
      expect((await list(b(), quiet.token)).statusCode).toBe(200);
      await accounts().revokeToken({ tokenId: told.id });
      await eventually(
        'the revoked token refused on B',
        async () => (await list(b(), told.token)).statusCode === 401,
      );
      expect((await list(b(), quiet.token)).statusCode).toBe(401);
    }, 120_000);
  },
);
