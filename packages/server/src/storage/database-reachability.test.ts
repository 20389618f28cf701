import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Database, ListenOptions } from './database.js';
import {
  isDatabaseUnreachable,
  underlyingDatabase,
  watchReachability,
} from './database-reachability.js';

describe('isDatabaseUnreachable', () => {
  it('tells a database that cannot be reached from a statement that failed', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', '57P01', '57P03', '08006', '08001']) {
      expect(isDatabaseUnreachable(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
    expect(isDatabaseUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true);
    for (const code of ['23505', '57014', '42P01', 'database_busy']) {
      expect(isDatabaseUnreachable(Object.assign(new Error('x'), { code })), code).toBe(false);
    }
    expect(isDatabaseUnreachable(undefined)).toBe(false);
    expect(isDatabaseUnreachable('ECONNREFUSED')).toBe(false);
  });

  it('never counts a SQLSTATE outside class 08 and the shutdown codes', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9A-Z]{5}$/), (code) => {
        const expected = code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code);
        expect(isDatabaseUnreachable({ code, message: 'x' })).toBe(expected);
      }),
    );
  });
});

describe('watchReachability', () => {
  it('tells an outage once when it begins and once when it ends', async () => {
    let down = false;
    const database = {
      driver: 'postgres',
      query: async () => {
        if (down) throw Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
        return { rows: [], rowCount: 0 };
      },
      transaction: async (callback) => callback(database),
      close: async () => {},
    } satisfies Database as Database;
    const told: string[] = [];
    const watched = watchReachability(database, {
      onUnreachable: () => told.push('unreachable'),
      onReachable: () => told.push('reachable'),
    });
    await watched.query('SELECT 1');
    down = true;
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(watched.query('SELECT 1')).rejects.toThrow('refused');
      await expect(watched.transaction(async (t) => t.query('SELECT 1'))).rejects.toThrow();
    }
    down = false;
    await watched.query('SELECT 1');
    await watched.query('SELECT 1');
    expect(told).toEqual(['unreachable', 'reachable']);
    // A statement that fails on its own says nothing about reachability.
    const failing = watchReachability(
      {
        ...database,
        query: async () => Promise.reject(Object.assign(new Error('dup'), { code: '23505' })),
      },
      { onUnreachable: () => told.push('wrong'), onReachable: () => told.push('wrong') },
    );
    await expect(failing.query('INSERT …')).rejects.toThrow('dup');
    expect(told).toEqual(['unreachable', 'reachable']);
    expect(watchReachability(watched, { onUnreachable: () => {}, onReachable: () => {} })).toBe(
      watched,
    );
    // What keys state by database (the token caches) finds the database behind its watch.
    expect(underlyingDatabase(watched)).toBe(database);
    expect(underlyingDatabase(database)).toBe(database);
  });

  it('tells once that a listening connection was lost and once that it is back, and passes on every change', async () => {
    let onListening: ListenOptions['onListening'];
    const database = {
      driver: 'postgres',
      query: async () => ({ rows: [], rowCount: 0 }),
      transaction: async (callback) => callback(database),
      async listen(_channel, _onNotify, options) {
        onListening = options?.onListening;
        return async () => {};
      },
      close: async () => {},
    } satisfies Database as Database;
    const told: string[] = [];
    const watched = watchReachability(database, {
      onUnreachable: () => told.push('unreachable'),
      onReachable: () => told.push('reachable'),
      onListenerLost: (channel, error) =>
        told.push(`lost ${channel} ${(error as { code: string }).code}`),
      onListenerBack: (channel) => told.push(`back ${channel}`),
    });
    const passed: boolean[] = [];
    await watched.listen?.('token_revoked', () => {}, {
      onListening: (listening) => passed.push(listening),
    });
    const refused = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    // Up at first: no news. Lost, then lost again (a failed attempt to reconnect), then back.
    onListening?.(true);
    onListening?.(false, Object.assign(new Error('terminating'), { code: '57P01' }));
    onListening?.(false, refused);
    onListening?.(true);
    onListening?.(true);
    expect(told).toEqual(['lost token_revoked 57P01', 'back token_revoked']);
    expect(passed).toEqual([true, false, false, true, true]);
    // A first connection that cannot be made is a loss too.
    await watched.listen?.('outbox_events', () => {});
    onListening?.(false, refused);
    onListening?.(true);
    expect(told.slice(2)).toEqual(['lost outbox_events ECONNREFUSED', 'back outbox_events']);
  });
});
