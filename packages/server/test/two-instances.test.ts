import { describe, expect, it, vi } from 'vitest';
import { buildServer } from '../src/build-server.js';
import { migrate } from '../src/storage/migrate.js';
import { openPostgresDatabase } from '../src/storage/postgres-database.js';
import { createAccountStore } from '../src/tokens/account-store.js';
import { testDatabaseUrl, testDriver, uniqueSchemaName } from './support/database.js';

// Several instances on one PostgreSQL database: each with its own pool, as separate processes
// would have. (PGlite is one process's alone; see the data-directory lock tests.)
describe.runIf(testDriver === 'postgres')('two server instances on one PostgreSQL', () => {
  it('start side by side and agree on tokens, revocations and the audit log', async () => {
    const schema = uniqueSchemaName();
    const databases = await Promise.all(
      [1, 2].map(() =>
        openPostgresDatabase({ connectionString: testDatabaseUrl(), schema, maxConnections: 3 }),
      ),
    );
    const [first, second] = databases;
    if (!first || !second) throw new Error('two databases expected');
    try {
      await Promise.all(databases.map((database) => migrate(database)));
      const apps = databases.map((database) => buildServer({ database, logger: false }));
      const [appA, appB] = apps;
      if (!appA || !appB) throw new Error('two apps expected');
      const store = createAccountStore({ database: first });
      const account = await store.createAccount({ name: 'shared', role: 'MANAGER' });
      const issued = await store.issueToken({ accountId: account.id });
      const get = (app: typeof appA) =>
        app.inject({
          method: 'GET',
          url: '/api/audit',
          headers: { authorization: `Bearer ${issued.token}` },
        });
      expect((await get(appA)).statusCode).toBe(200);
      expect((await get(appB)).statusCode).toBe(200);
      // Inbox messages written through one instance are listed by the other.
      const created = await appA.inject({
        method: 'POST',
        url: '/api/inbox/webhook',
        payload: { from: 'ada@example.com', subject: 'Hi' },
      });
      const listed = await appB.inject({
        method: 'GET',
        url: '/api/messages',
        headers: { authorization: `Bearer ${issued.token}` },
      });
      expect(listed.json().messages.map((message: { id: string }) => message.id)).toEqual([
        created.json().id,
      ]);
      // A revocation through the second database: at once on that instance, and on the other
      // one as soon as the token_revoked notification reaches it (within a second).
      await createAccountStore({ database: second }).revokeToken({ tokenId: issued.id });
      expect((await get(appB)).json()).toMatchObject({ code: 'token_revoked' });
      await vi.waitFor(
        async () => expect((await get(appA)).json()).toMatchObject({ code: 'token_revoked' }),
        { timeout: 10_000, interval: 20 },
      );
      await Promise.all(apps.map((app) => app.close()));
    } finally {
      await first.query(`DROP SCHEMA ${schema} CASCADE`);
      await Promise.all(databases.map((database) => database.close()));
    }
  });
});
