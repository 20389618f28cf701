import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testDriver, useTestDatabase } from '../../test/support/database.js';
import type { Database, DatabaseDriver, QueryResult } from '../storage/database.js';
import { OUTBOX_CHANNEL } from '../stores/outbox-store.js';
import { createOutboxAnnouncer, OUTBOX_NOTIFY_INTERVAL_MS } from './outbox-announcer.js';

// Storage that records each statement, answers nothing, and can be made to fail.
function recordingStorage(driver: DatabaseDriver, fail?: Error) {
  const sent: { sql: string; params: readonly unknown[] | undefined }[] = [];
  const storage: Database = {
    driver,
    async query<Row>(sql: string, params?: readonly unknown[]) {
      sent.push({ sql, params });
      if (fail) throw fail;
      return { rows: [], rowCount: 0 } as QueryResult<Row>;
    },
    transaction: () => Promise.reject(new Error('not used')),
    close: async () => {},
  };
  return { storage, sent };
}

describe('createOutboxAnnouncer', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('notifies at once after a quiet spell, on the outbox channel, with the schema', async () => {
    const { storage, sent } = recordingStorage('postgres');
    const announcer = createOutboxAnnouncer(storage, { onError: () => {} });
    announcer.announce();
    expect(sent).toEqual([
      { sql: `SELECT pg_notify($1, current_schema() || ':')`, params: [OUTBOX_CHANNEL] },
    ]);
    await announcer.close();
  });

  it('answers a burst with one notification at once and one at the end of the interval', async () => {
    const { storage, sent } = recordingStorage('postgres');
    const announcer = createOutboxAnnouncer(storage, { onError: () => {} });
    // A write every tenth of the interval, for five intervals.
    for (let write = 0; write < 50; write++) {
      announcer.announce();
      await vi.advanceTimersByTimeAsync(OUTBOX_NOTIFY_INTERVAL_MS / 10);
      // The first at once, then one as each interval ends: every write announced within one.
      expect(sent).toHaveLength(1 + Math.floor((write + 1) / 10));
    }
    // 50 writes, 6 notifications; and nothing more without another write.
    await vi.advanceTimersByTimeAsync(OUTBOX_NOTIFY_INTERVAL_MS * 10);
    expect(sent).toHaveLength(6);
    await announcer.close();
  });

  it('sends the notification still waiting when it closes, and none after', async () => {
    const { storage, sent } = recordingStorage('postgres');
    const announcer = createOutboxAnnouncer(storage, { onError: () => {} });
    announcer.announce();
    announcer.announce();
    expect(sent).toHaveLength(1);
    await announcer.close();
    expect(sent).toHaveLength(2);
    announcer.announce();
    await vi.advanceTimersByTimeAsync(OUTBOX_NOTIFY_INTERVAL_MS * 2);
    expect(sent).toHaveLength(2);
  });

  it('hands a failed notification to onError and never throws into the request', async () => {
    const failure = new Error('connection lost');
    const { storage } = recordingStorage('postgres', failure);
    const errors: unknown[] = [];
    const announcer = createOutboxAnnouncer(storage, { onError: (error) => errors.push(error) });
    expect(() => announcer.announce()).not.toThrow();
    await announcer.close();
    expect(errors).toEqual([failure]);
  });

  it('sends nothing on PGlite, which one process owns', async () => {
    const { storage, sent } = recordingStorage('pglite');
    const announcer = createOutboxAnnouncer(storage, { onError: () => {} });
    announcer.announce();
    await vi.advanceTimersByTimeAsync(OUTBOX_NOTIFY_INTERVAL_MS * 2);
    await announcer.close();
    expect(sent).toEqual([]);
  });
});

describe.runIf(testDriver === 'postgres')('createOutboxAnnouncer on PostgreSQL', () => {
  const database = useTestDatabase();

  it('reaches a listener of the same schema with a payload naming it', async () => {
    const payloads: (string | undefined)[] = [];
    let heard!: () => void;
    const arrived = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const stop = await database().listen?.(
      OUTBOX_CHANNEL,
      (payload) => {
        payloads.push(payload);
        heard();
      },
      { ownSchemaOnly: true },
    );
    try {
      const announcer = createOutboxAnnouncer(database(), {
        onError: (error) => payloads.push(String(error)),
      });
      announcer.announce();
      await arrived;
      await announcer.close();
      const { rows } = await database().query<{ schema: string }>(
        'SELECT current_schema() AS schema',
      );
      expect(payloads).toEqual([`${rows[0]?.schema}:`]);
    } finally {
      await stop?.();
    }
  });
});
