import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createIdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { recordAttemptBatch } from '../stores/attempt-record-store.js';
import { claimDueDeliveries } from '../stores/delivery-claim-store.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { type AttemptRecord, createAttemptRecorder } from './attempt-recorder.js';
import { fanOutEvents } from './fan-out.js';
import type { DeliveryAttemptResult } from './post-delivery.js';
import { createEndpointStore } from './webhook-endpoints.js';

describe('the attempt recorder', () => {
  const database = useTestDatabase();
  const clock = manualClock();
  const newId = createIdGenerator({ now: () => clock.now() });

  /** A recorder writing to `on`, with a day before an endpoint is disabled and a batch of 32. */
  function recorderOn(on: Database, maxBatch = 32) {
    return createAttemptRecorder({
      database: on,
      autoDisableAfterMs: 86_400_000,
      clock,
      newId,
      maxBatch,
    });
  }

  /**
   * The database, counting its commits (transactions begun and statements run alone, each of
   * which commits by itself) and failing the next `failures` of them.
   */
  function counted(failures = 0) {
    const seen = { commits: 0, transactions: 0 };
    let failuresLeft = failures;
    const fail = () => {
      if (failuresLeft === 0) return false;
      failuresLeft -= 1;
      return true;
    };
    const counting: Database = Object.create(database());
    counting.transaction = (callback) => {
      seen.commits += 1;
      seen.transactions += 1;
      if (fail()) return Promise.reject(new Error('the database went away'));
      return database().transaction(callback);
    };
    counting.query = (sql, params) => {
      seen.commits += 1;
      if (fail()) return Promise.reject(new Error('the database went away'));
      return database().query(sql, params);
    };
    return { database: counting, seen };
  }

  /** `count` claimed deliveries of one new endpoint. */
  async function claimed(count: number) {
    const endpoint = await createEndpointStore({ database: database(), clock, newId }).add({
      url: 'https://subscriber.example.com/hooks',
      events: ['contact.created'],
    });
    for (let index = 0; index < count; index++) {
      await recordOutboxEvent(
        database(),
        { event: 'contact.created', data: { id: newId('con') } },
        { clock, newId },
      );
    }
    while ((await fanOutEvents(database(), { clock, newId })) > 0);
    const rows = await claimDueDeliveries(database(), {
      now: clock.now(),
      leaseMs: 20_000,
      limit: count,
      endpointConcurrency: count,
      busyEndpoints: [],
      busyCounts: [],
    });
    expect(rows).toHaveLength(count);
    return { endpoint, rows };
  }

  function record(
    row: Awaited<ReturnType<typeof claimed>>['rows'][number],
    result: DeliveryAttemptResult,
  ): AttemptRecord {
    const now = clock.now();
    const delivered = result.outcome === 'delivered';
    return {
      attempt: {
        deliveryId: row.id,
        startedAt: new Date(now),
        durationMs: result.durationMs,
        status: result.status ?? null,
        error: result.error ?? null,
        responseExcerpt: result.responseExcerpt ?? null,
      },
      health: { endpointId: row.endpoint_id, deliveryId: row.id, result, now },
      outcome: {
        id: row.id,
        leaseUntil: row.lease_until,
        state: delivered ? 'delivered' : 'pending',
        nextAttemptAt: delivered ? null : new Date(now + 60_000),
        status: result.status ?? null,
        error: result.error ?? null,
        now: new Date(now),
      },
    };
  }

  const ok: DeliveryAttemptResult = {
    outcome: 'delivered',
    status: 204,
    durationMs: 3,
    error: undefined,
  };
  const failed: DeliveryAttemptResult = {
    outcome: 'failed',
    status: 500,
    durationMs: 4,
    error: undefined,
    responseExcerpt: Buffer.from([0x6f, 0x6f, 0x70, 0x73, 0x00, 0xff]),
  };

  async function states() {
    const { rows } = await database().query<{ state: string; attempts: number }>(
      'SELECT state, attempts FROM deliveries ORDER BY id',
    );
    return rows;
  }

  it('writes the attempts that end in one turn of the event loop in one commit', async () => {
    const { rows } = await claimed(5);
    const { database: counting, seen } = counted();
    const recordAttempt = recorderOn(counting);
    // All five end in one turn, as responses read in one poll of the sockets do.
    await Promise.all(rows.map((row) => recordAttempt(record(row, ok))));
    expect(seen.commits).toBe(1);
    // Successes to an endpoint in good health: each batch is one statement, no transaction.
    expect(seen.transactions).toBe(0);
    expect(await states()).toEqual(rows.map(() => ({ state: 'delivered', attempts: 1 })));
    const attempts = await database().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_attempts WHERE status = 204',
    );
    expect(attempts.rows[0]?.n).toBe(5);
  });

  it('writes the attempts that end while a commit is under way together, in the next one', async () => {
    const { rows } = await claimed(4);
    const { database: counting, seen } = counted();
    const recordAttempt = recorderOn(counting);
    const [first, ...others] = rows as [(typeof rows)[number], ...(typeof rows)[number][]];
    let meanwhile: Promise<void>[] = [];
    const query = counting.query;
    counting.query = (sql, params) => {
      // Three more attempts end as the first one's statement is sent.
      if (seen.commits === 0) meanwhile = others.map((row) => recordAttempt(record(row, ok)));
      return query(sql, params);
    };
    await recordAttempt(record(first, ok));
    await Promise.all(meanwhile);
    expect(meanwhile).toHaveLength(3);
    expect(seen.commits).toBe(2);
    expect(await states()).toEqual(rows.map(() => ({ state: 'delivered', attempts: 1 })));
  });

  it('writes no more attempts in one commit than its batch limit', async () => {
    const { rows } = await claimed(7);
    const { database: counting, seen } = counted();
    const recordAttempt = recorderOn(counting, 2);
    await Promise.all(rows.map((row) => recordAttempt(record(row, ok))));
    // The seven that ended in one turn, two at a time.
    expect(seen.commits).toBe(4);
    expect((await states()).every((row) => row.state === 'delivered')).toBe(true);
  });

  it("keeps an endpoint's health in the order its attempts ended within one batch", async () => {
    const { endpoint, rows } = await claimed(4);
    const recordAttempt = recorderOn(database());
    const [first, second, third, fourth] = rows as [
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
    ];
    // A success, a failure, a success and a failure end in one turn: one batch.
    await Promise.all([
      recordAttempt(record(first, ok)),
      recordAttempt(record(second, failed)),
      recordAttempt(record(third, ok)),
      recordAttempt(record(fourth, failed)),
    ]);
    const { rows: kinds } = await database().query<{ event: string }>(
      `SELECT event FROM outbox_events WHERE event LIKE 'endpoint.%' ORDER BY created_at, id`,
    );
    expect(kinds.map((row) => row.event)).toEqual([
      'endpoint.failing',
      'endpoint.recovered',
      'endpoint.failing',
    ]);
    const { rows: health } = await database().query<{ failing_since: string | null }>(
      'SELECT failing_since FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(health[0]?.failing_since).not.toBeNull();
    const { rows: excerpts } = await database().query<{ response_excerpt: Uint8Array }>(
      'SELECT response_excerpt FROM delivery_attempts WHERE status = 500',
    );
    expect(excerpts.map((row) => [...row.response_excerpt])).toEqual([
      [...(failed.responseExcerpt as Buffer)],
      [...(failed.responseExcerpt as Buffer)],
    ]);
  });

  it('rejects every attempt of a batch whose transaction fails, and writes the next batch', async () => {
    const { rows } = await claimed(3);
    const { database: failing, seen } = counted(1);
    const recordAttempt = recorderOn(failing);
    const [first, second, third] = rows as [
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
    ];
    const settled = await Promise.allSettled([
      recordAttempt(record(first, ok)),
      recordAttempt(record(second, ok)),
    ]);
    expect(settled.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    await recordAttempt(record(third, ok));
    expect(seen.commits).toBe(2);
    expect((await states()).map((row) => row.state).sort()).toEqual([
      'delivered',
      'pending',
      'pending',
    ]);
  });

  it('ends a run of failures that a batch of successes meets, in a transaction, once', async () => {
    const { endpoint, rows } = await claimed(3);
    const recordAttempt = recorderOn(database());
    const [first, second, third] = rows as [
      (typeof rows)[number],
      (typeof rows)[number],
      (typeof rows)[number],
    ];
    await recordAttempt(record(first, failed));
    const { database: counting, seen } = counted();
    const recordAfter = recorderOn(counting);
    // The first success: the lone statement finds the endpoint failing, writes nothing and says
    // so, and a transaction ends the run. The second, the endpoint in good health again, is one
    // statement.
    await recordAfter(record(second, ok));
    await recordAfter(record(third, ok));
    expect(seen).toEqual({ commits: 3, transactions: 1 });
    const { rows: kinds } = await database().query<{ event: string }>(
      `SELECT event FROM outbox_events WHERE event LIKE 'endpoint.%' ORDER BY created_at, id`,
    );
    expect(kinds.map((row) => row.event)).toEqual(['endpoint.failing', 'endpoint.recovered']);
    const { rows: health } = await database().query<{ failing_since: string | null }>(
      'SELECT failing_since FROM webhook_endpoints WHERE id = $1',
      [endpoint.id],
    );
    expect(health[0]?.failing_since).toBeNull();
    // Each attempt recorded once, and each delivery's outcome under its lease.
    const { rows: attempts } = await database().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_attempts',
    );
    expect(attempts[0]?.n).toBe(3);
    expect(await states()).toEqual([
      { state: 'pending', attempts: 1 },
      { state: 'delivered', attempts: 1 },
      { state: 'delivered', attempts: 1 },
    ]);
  });

  it('writes nothing of a batch of successes whose endpoint is failing until the run ends', async () => {
    const { rows } = await claimed(2);
    const [first, second] = rows as [(typeof rows)[number], (typeof rows)[number]];
    await recorderOn(database())(record(first, failed));
    // The lone statement on its own, as the recorder runs it first: it answers false and writes
    // nothing, neither the attempt nor the outcome.
    const success = record(second, ok);
    expect(
      await recordAttemptBatch(database(), {
        attempts: [success.attempt],
        outcomes: [success.outcome],
        unlessFailing: [success.health.endpointId],
      }),
    ).toBe(false);
    const { rows: attempts } = await database().query<{ n: number }>(
      'SELECT count(*)::int AS n FROM delivery_attempts',
    );
    expect(attempts[0]?.n).toBe(1);
    expect((await states()).map((row) => row.attempts)).toEqual([1, 0]);
  });
});
