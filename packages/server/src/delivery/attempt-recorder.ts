import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import {
  type DeliveryAttemptRecord,
  type DeliveryOutcome,
  recordAttemptBatch,
} from '../stores/attempt-record-store.js';
import { type EndpointAttempt, recordEndpointHealth } from './endpoint-health.js';

/** @internal What is recorded of one attempt: the attempt, its endpoint's health, the outcome. */
export interface AttemptRecord {
  attempt: DeliveryAttemptRecord;
  health: EndpointAttempt;
  outcome: DeliveryOutcome;
}

/** @internal Options of {@link createAttemptRecorder}. */
export interface AttemptRecorderOptions {
  database: Database;
  autoDisableAfterMs: number;
  clock: Clock;
  newId: IdGenerator;
  /**
   * The most attempts one transaction records (the worker's concurrency: no more can end
   * while one is written).
   */
  maxBatch: number;
}

/**
 * @internal Records attempts as they end, in as few transactions as the database's pace allows
 * (group commit): the attempts that end in one turn of the event loop are written together once
 * it is over (`setImmediate`: the responses read in one poll of the sockets, so no timer and no
 * added wait); those that end while a transaction is under way are written together by the next
 * one. Each batch is written by one statement alone when
 * all of them succeeded and none of their endpoints is in a run of failures (nothing of an
 * endpoint's health changes then), else in a transaction that records each endpoint's health
 * too. An idle worker records each attempt as soon as it ends, as before; a busy one commits
 * once for many attempts, so that the database's work per delivery falls as the rate rises
 * instead of a queue forming behind one commit per attempt (measured on PostgreSQL at 1,000
 * deliveries a second: see docs/decisions.md). With traces on, the statements of every batch
 * written in one go are spans of the attempt whose end began that writing. Each promise settles
 * when its attempt's statement or transaction does; one that fails rejects every attempt of its
 * batch, whose leases then run out and whose deliveries are made again.
 */
export function createAttemptRecorder(
  options: AttemptRecorderOptions,
): (record: AttemptRecord) => Promise<void> {
  const { database, maxBatch } = options;
  const dependencies = {
    autoDisableAfterMs: options.autoDisableAfterMs,
    clock: options.clock,
    newId: options.newId,
  };
  type Waiting = { record: AttemptRecord; resolve: () => void; reject: (error: unknown) => void };
  let waiting: Waiting[] = [];
  let writing = false;

  async function write(batch: readonly AttemptRecord[]): Promise<void> {
    const written = {
      attempts: batch.map((record) => record.attempt),
      outcomes: batch.map((record) => record.outcome),
    };
    // Successes to endpoints in good health, the usual batch of a busy worker: one statement.
    if (batch.every((record) => record.health.result.outcome === 'delivered')) {
      const unlessFailing = batch.map((record) => record.health.endpointId);
      if (await recordAttemptBatch(database, { ...written, unlessFailing })) return;
    }
    await database.transaction(async (transaction) => {
      // Endpoint health in the order of the endpoints' ids, so that two instances' batches lock
      // endpoint rows in one order and never wait for each other in a circle; each endpoint's
      // attempts in the order they ended. A success after a success of the same endpoint changes
      // nothing (its run of failures is already over) and is not written again.
      const byEndpoint = [...batch].sort((a, b) =>
        a.health.endpointId < b.health.endpointId
          ? -1
          : a.health.endpointId > b.health.endpointId
            ? 1
            : 0,
      );
      let previous: AttemptRecord | undefined;
      for (const record of byEndpoint) {
        const repeated =
          previous?.health.endpointId === record.health.endpointId &&
          previous.health.result.outcome === 'delivered' &&
          record.health.result.outcome === 'delivered';
        if (!repeated) await recordEndpointHealth(transaction, record.health, dependencies);
        previous = record;
      }
      await recordAttemptBatch(transaction, written);
    });
  }

  async function drain(): Promise<void> {
    while (waiting.length > 0) {
      const batch = waiting.slice(0, maxBatch);
      waiting = waiting.slice(batch.length);
      try {
        await write(batch.map((entry) => entry.record));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    writing = false;
  }

  return function recordAttempt(record: AttemptRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      waiting.push({ record, resolve, reject });
      if (writing) return;
      // Not at once: a write that returns at once (PGlite without its fsync, a statement that
      // waits for no flush) would otherwise take each attempt alone, one commit and one claim per
      // webhook, which at 1,000 webhooks a second cost twice the CPU and let a backlog grow.
      writing = true;
      setImmediate(() => void drain());
    });
  };
}
