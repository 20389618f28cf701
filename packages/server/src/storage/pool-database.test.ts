import { EventEmitter } from 'node:events';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LISTEN_RETRY_INITIAL_MS, LISTEN_RETRY_MAX_MS, PoolDatabase } from './pool-database.js';

// The listener of PoolDatabase alone, over stand-ins for `pg`'s clients: whether each
// connection can be made is the test's to say, and the timers are fake, moved only when a test
// says so.

/** Lets every promise that is ready run, without moving the fake timers. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await Promise.resolve();
}

/** A stand-in for a `pg.Client`: connects when `up()`, else fails as a refused connection. */
class FakeClient extends EventEmitter {
  readonly queries: string[] = [];
  ended = false;
  constructor(private readonly up: () => boolean) {
    super();
  }
  async connect(): Promise<void> {
    if (!this.up()) {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), {
        code: 'ECONNREFUSED',
      });
    }
  }
  async query(sql: string): Promise<{ rows: { schema: string }[] }> {
    this.queries.push(sql);
    return { rows: [{ schema: 'public' }] };
  }
  async end(): Promise<void> {
    this.ended = true;
  }
}

describe('the listening connection of a PostgreSQL database', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A database whose listeners are FakeClients, up while `state.up` says so. */
  function databaseWith(state: { up: boolean }) {
    const clients: FakeClient[] = [];
    const pool = { waitingCount: 0, end: async () => {} } as unknown as pg.Pool;
    const database = new PoolDatabase({
      driver: 'postgres',
      pool,
      newListener: () => {
        const client = new FakeClient(() => state.up);
        clients.push(client);
        return client as unknown as pg.Client;
      },
    });
    return { database, clients };
  }

  it('reconnects after a lost connection with waits that double up to a cap, listens again, and says so once each way', async () => {
    const state = { up: true };
    const { database, clients } = databaseWith(state);
    const notified: (string | undefined)[] = [];
    const told: { listening: boolean; code?: unknown }[] = [];
    const stop = await database.listen('outbox_events', (payload) => notified.push(payload), {
      onListening: (listening, error) =>
        told.push(
          listening ? { listening } : { listening, code: (error as { code?: unknown }).code },
        ),
    });
    expect(told).toEqual([{ listening: true }]);
    expect(clients[0]?.queries).toEqual(['LISTEN outbox_events']);

    // PostgreSQL stops: the connection is terminated, and every attempt to make it again is
    // refused until it is back.
    state.up = false;
    clients[0]?.emit('error', Object.assign(new Error('terminating'), { code: '57P01' }));
    await settle();
    expect(told).toEqual([{ listening: true }, { listening: false, code: '57P01' }]);
    expect(clients[0]?.ended).toBe(true);

    const waits: number[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      waits.push(await waitUntilNextAttempt(clients, clients.length));
    }
    expect(waits).toEqual([
      LISTEN_RETRY_INITIAL_MS,
      2 * LISTEN_RETRY_INITIAL_MS,
      4 * LISTEN_RETRY_INITIAL_MS,
      8 * LISTEN_RETRY_INITIAL_MS,
      16 * LISTEN_RETRY_INITIAL_MS,
      LISTEN_RETRY_MAX_MS,
      LISTEN_RETRY_MAX_MS,
      LISTEN_RETRY_MAX_MS,
    ]);
    // Lost once, however many attempts failed; nothing was notified meanwhile.
    expect(told).toHaveLength(2);
    expect(notified).toEqual([]);

    // Back: the next attempt listens again and tells what a missed notification would have.
    state.up = true;
    await vi.advanceTimersByTimeAsync(LISTEN_RETRY_MAX_MS);
    await settle();
    const back = clients.at(-1);
    expect(back?.queries).toEqual(['LISTEN outbox_events']);
    expect(told.at(-1)).toEqual({ listening: true });
    expect(told).toHaveLength(3);
    expect(notified).toEqual([undefined]);
    back?.emit('notification', { channel: 'outbox_events', payload: 'public:' });
    expect(notified).toEqual([undefined, 'public:']);

    // A second loss starts again from the first, short wait.
    back?.emit('end');
    await settle();
    expect(told.at(-1)).toMatchObject({ listening: false });
    expect(await waitUntilNextAttempt(clients, clients.length)).toBe(LISTEN_RETRY_INITIAL_MS);
    await settle();
    expect(told.at(-1)).toEqual({ listening: true });
    await stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps trying when the first connection cannot be made, and stops trying once stopped', async () => {
    const state = { up: false };
    const { database, clients } = databaseWith(state);
    const told: boolean[] = [];
    const stop = await database.listen('token_revoked', () => {}, {
      onListening: (listening) => told.push(listening),
    });
    expect(told).toEqual([false]);
    expect(await waitUntilNextAttempt(clients, 1)).toBe(LISTEN_RETRY_INITIAL_MS);
    await stop();
    await vi.advanceTimersByTimeAsync(10 * LISTEN_RETRY_MAX_MS);
    expect(clients).toHaveLength(2);
    expect(told).toEqual([false]);
  });
});

/**
 * Moves the fake timers a millisecond at a time until a new listening connection is tried
 * (there are `before` until then); answers how long that took.
 */
async function waitUntilNextAttempt(clients: FakeClient[], before: number): Promise<number> {
  let waited = 0;
  while (clients.length === before) {
    if (waited > 10 * LISTEN_RETRY_MAX_MS) throw new Error('no new attempt');
    await vi.advanceTimersByTimeAsync(1);
    waited++;
  }
  await settle();
  return waited;
}
