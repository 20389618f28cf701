import { afterEach, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { openRawConnection, type RawConnection } from '../../test/support/raw-http.js';
import { useTestServer } from '../../test/support/server.js';
import { buildServer } from '../build-server.js';
import type { Database } from '../storage/database.js';
import { SCHEMA_VERSION } from '../storage/migrations/index.js';

// A database that stops answering when told to, as one does while its server restarts.
let databaseDown = false;
function unreachableWhenDown(database: Database): Database {
  const refuse = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
  return {
    ...database,
    driver: database.driver,
    query: (sql, params) => (databaseDown ? refuse() : database.query(sql, params)),
    transaction: (callback) => (databaseDown ? refuse() : database.transaction(callback)),
    close: () => database.close(),
  };
}

describe('probes', () => {
  const server = useTestServer({ wrapDatabase: unreachableWhenDown });
  afterEach(() => {
    databaseDown = false;
  });

  it('answers GET /livez and GET /readyz 200 on a ready server, naming every check', async () => {
    const live = await server().app.inject({ method: 'GET', url: '/livez' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    const ready = await server().app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ok',
      checks: { shutdown: 'ok', database: 'ok', migrations: 'ok' },
    });
  });

  it('answers GET /readyz 503 naming the database while it does not answer, and /livez 200', async () => {
    databaseDown = true;
    const ready = await server().app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(ready.json()).toMatchObject({
      code: 'unavailable',
      status: 503,
      detail: 'Not ready: database: the database does not answer.',
      checks: { shutdown: 'ok', database: 'failed', migrations: 'skipped' },
      requestId: ready.headers['x-request-id'],
    });
    const live = await server().app.inject({ method: 'GET', url: '/livez' });
    expect(live.statusCode).toBe(200);
    databaseDown = false;
    const again = await server().app.inject({ method: 'GET', url: '/readyz' });
    expect(again.statusCode).toBe(200);
  });

  it('answers GET /readyz 503 naming the migrations while the schema is behind the code', async () => {
    const { database } = server();
    const { rows } = await database.query<{ name: string }>(
      'DELETE FROM schema_migrations WHERE version = $1 RETURNING name',
      [SCHEMA_VERSION],
    );
    try {
      const ready = await server().app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode).toBe(503);
      const previous = Math.max(
        ...(
          await database.query<{ version: number }>('SELECT version FROM schema_migrations')
        ).rows.map((row) => row.version),
      );
      expect(ready.json()).toMatchObject({
        code: 'unavailable',
        detail: `Not ready: migrations: the database schema is at version ${previous}, this server's code at ${SCHEMA_VERSION}.`,
        checks: { shutdown: 'ok', database: 'ok', migrations: 'failed' },
      });
      // /healthz stays as it was: the database answers.
      const health = await server().app.inject({ method: 'GET', url: '/healthz' });
      expect(health.statusCode).toBe(200);
    } finally {
      await database.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        SCHEMA_VERSION,
        rows[0]?.name,
      ]);
    }
  });

  it('answers the probes whatever the host, with --public-url set', async () => {
    // A public URL makes other hosts 421; the probes are made at each instance's own address.
    const app = buildServer({
      database: server().database,
      logger: false,
      publicUrl: 'https://followup.example.org',
    });
    try {
      for (const url of ['/livez', '/readyz']) {
        const response = await app.inject({
          method: 'GET',
          url,
          headers: { host: '10.0.0.7:3000' },
        });
        expect(response.statusCode).toBe(200);
      }
    } finally {
      await app.close();
    }
  });
});

describe('probes during shutdown', () => {
  const database = useTestDatabase();
  const connections: RawConnection[] = [];
  afterEach(() => {
    for (const connection of connections.splice(0)) connection.socket.destroy();
  });

  it('answers GET /readyz 503 naming the shutdown, and GET /livez 200, while requests finish', async () => {
    const app = buildServer({ database: database(), logger: false });
    let held = 0;
    let bothEntered: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      bothEntered = resolve;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.get('/test/hold', async () => {
      if (++held === 2) bothEntered();
      await gate;
      return { finished: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    // Two keep-alive connections with a request running on each: a closing server ends a
    // connection once it is idle, so each carries one probe after its running request.
    const [forReadiness, forLiveness] = await Promise.all([
      openRawConnection(port),
      openRawConnection(port),
    ]);
    if (!forReadiness || !forLiveness) throw new Error('not connected');
    connections.push(forReadiness, forLiveness);
    for (const connection of connections) {
      connection.write('GET /test/hold HTTP/1.1\r\nHost: localhost\r\n\r\n');
    }
    await running;
    const closing = app.close();
    while (app.server.listening) await new Promise((resolve) => setImmediate(resolve));
    forReadiness.write('GET /readyz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    forLiveness.write('GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n');
    release();
    expect((await forReadiness.next()).status).toBe(200);
    expect((await forLiveness.next()).status).toBe(200);
    const ready = await forReadiness.next();
    expect(ready.status).toBe(503);
    expect(ready.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(JSON.parse(ready.body)).toMatchObject({
      code: 'unavailable',
      detail: 'Not ready: shutdown: the server is shutting down.',
      checks: { shutdown: 'failed', database: 'skipped', migrations: 'skipped' },
    });
    const live = await forLiveness.next();
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body)).toEqual({ status: 'ok' });
    await closing;
  });
});
