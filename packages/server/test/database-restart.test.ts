import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../src/build-server.js';
import type { Database } from '../src/storage/database.js';
import { migrate } from '../src/storage/migrate.js';
import { openPostgresDatabase } from '../src/storage/postgres-database.js';
import { createAccountStore } from '../src/tokens/account-store.js';
import { testDriver, uniqueSchemaName } from './support/database.js';

const run = promisify(execFile);
const script = (name: string) => fileURLToPath(new URL(`../scripts/${name}`, import.meta.url));
// A cluster of this test's own, never the suite's shared one: it is stopped and started again.
const cluster = { FOLLOWUP_TEST_PG_DIR: '/tmp/followup-pg-ops', FOLLOWUP_TEST_PG_PORT: '54339' };

async function startCluster(): Promise<string> {
  const { stdout } = await run('bash', [script('start-test-postgres.sh')], {
    env: { ...process.env, ...cluster },
  });
  const url = /FOLLOWUP_TEST_DATABASE_URL=(\S+)/.exec(stdout)?.[1];
  if (!url) throw new Error(`start-test-postgres.sh printed no URL: ${stdout}`);
  return url;
}

// Stops the cluster of this test's directory (fast shutdown) and waits until it is gone.
async function stopCluster(): Promise<void> {
  await run('bash', [script('stop-test-postgres.sh')], { env: { ...process.env, ...cluster } });
}

// The database restarts under a running server: PostgreSQL only (PGlite runs in the process).
describe.skipIf(testDriver !== 'postgres')('a PostgreSQL restart under a running server', () => {
  let database: Database | undefined;
  let app: FastifyInstance | undefined;
  const logs: { msg: string; level: number }[] = [];
  let token = '';

  beforeAll(async () => {
    const url = await startCluster();
    database = await openPostgresDatabase({ connectionString: url, schema: uniqueSchemaName() });
    await migrate(database);
    app = buildServer({
      database,
      logger: { level: 'info', stream: { write: (line) => void logs.push(JSON.parse(line)) } },
    });
    await app.ready();
    const accounts = createAccountStore({ database });
    const account = await accounts.createAccount({ name: 'restart', role: 'READONLY' });
    token = (await accounts.issueToken({ accountId: account.id })).token;
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
    await stopCluster();
  });

  const list = () =>
    (app as FastifyInstance).inject({
      method: 'GET',
      url: '/api/contacts',
      headers: { authorization: `Bearer ${token}` },
    });
  const lines = (message: string) => logs.filter((line) => line.msg.startsWith(message));

  it('answers 503 unavailable with Retry-After while it is down, logs it once, and recovers', async () => {
    expect((await list()).statusCode).toBe(200);
    await stopCluster();

    for (let request = 0; request < 3; request++) {
      const refused = await list();
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.json()).toMatchObject({ code: 'unavailable', status: 503 });
    }
    const ready = await (app as FastifyInstance).inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ checks: { database: 'failed' } });
    expect(lines('database unreachable')).toHaveLength(1);
    expect(lines('database unreachable')[0]?.level).toBe(50);
    // Not one error line per request: no request "failed" as a fault of the server.
    expect(lines('request failed')).toEqual([]);

    await startCluster();
    expect((await list()).statusCode).toBe(200);
    expect((await list()).statusCode).toBe(200);
    expect(lines('database reachable again')).toHaveLength(1);
    expect(lines('database unreachable')).toHaveLength(1);
    const readyAgain = await (app as FastifyInstance).inject({ method: 'GET', url: '/readyz' });
    expect(readyAgain.statusCode).toBe(200);
  });
});
