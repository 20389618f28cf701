import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { buildServer } from '../../src/build-server.js';
import type { BuildServerOptions } from '../../src/build-server-options.js';
import { createIdGenerator } from '../../src/ids.js';
import type { LogLevel } from '../../src/plugins/logging.js';
import type { Database } from '../../src/storage/database.js';
import { createAccountStore } from '../../src/tokens/account-store.js';
import type { Role } from '../../src/tokens/role.js';
import { type ManualClock, manualClock } from './clock.js';
import { openTestDatabase, truncateAll } from './database.js';

/** Everything a route test needs, shared by the tests of one file. */
export interface TestServer {
  app: FastifyInstance;
  database: Database;
  clock: ManualClock;
  /** Every log line written, parsed; emptied before each test. */
  logs: string[];
  /** Creates an account with this role and issues it a token. */
  tokenFor(
    role: Role,
    ttlSeconds?: number,
  ): Promise<{ token: string; tokenId: string; accountId: string }>;
  accounts: ReturnType<typeof createAccountStore>;
}

/**
 * One database and one app for a test file (emptied before each test), with a manual clock and
 * a log collector at trace level (unless `logLevel` says otherwise), so that the redaction is
 * exercised on every test.
 */
export function useTestServer(
  options: Partial<Omit<BuildServerOptions, 'database' | 'clock'>> & {
    configure?: (app: FastifyInstance) => void;
    /** What the app is given instead of the test database itself (a wrapper that watches it). */
    wrapDatabase?: (database: Database) => Database;
    /** The level the log collector is given; `trace` unless a test is about levels. */
    logLevel?: LogLevel;
  } = {},
): () => TestServer {
  let server: TestServer | undefined;
  beforeAll(async () => {
    const database = await openTestDatabase();
    const clock = manualClock();
    const logs: string[] = [];
    const newId = createIdGenerator({ now: () => clock.now() });
    const { configure, wrapDatabase, logLevel = 'trace', ...rest } = options;
    const app = buildServer({
      database: wrapDatabase ? wrapDatabase(database) : database,
      clock,
      newId,
      logger: { level: logLevel, stream: { write: (line) => void logs.push(line) } },
      ...rest,
    });
    configure?.(app);
    await app.ready();
    const accounts = createAccountStore({ database, clock, newId });
    server = {
      app,
      database,
      clock,
      logs,
      accounts,
      async tokenFor(role, ttlSeconds) {
        const account = await accounts.createAccount({ name: `test-${role}`, role });
        const issued = await accounts.issueToken(
          ttlSeconds === undefined
            ? { accountId: account.id }
            : { accountId: account.id, ttlSeconds },
        );
        return { token: issued.token, tokenId: issued.id, accountId: account.id };
      },
    };
  });
  beforeEach(async () => {
    if (!server) return;
    await truncateAll(server.database);
    server.logs.length = 0;
    server.clock.set('2026-03-01T09:00:00.000Z');
  });
  afterAll(async () => {
    await server?.app.close();
    await server?.database.close();
  });
  return () => {
    if (!server) throw new Error('The test server is not ready yet.');
    return server;
  };
}
