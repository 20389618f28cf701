import type { Queryable } from '../../src/storage/database.js';

/** How long {@link settledFeed} waits at most: a guard against a hung test, under its timeout. */
const SETTLE_GUARD_MS = 100_000;

/**
 * Waits until the event feed shows every event written so far. On PostgreSQL the feed shows an
 * event once every transaction older than the event's own has ended, anywhere on the server:
 * other test files' transactions, other copies of the suite and anything else using the same
 * server included, so this waits for that event, never for a fixed time. On PGlite (one
 * connection) it is settled at once.
 */
export async function settledFeed(database: Queryable): Promise<void> {
  const deadline = Date.now() + SETTLE_GUARD_MS;
  for (;;) {
    const { rows } = await database.query<{ settled: boolean }>(
      `SELECT coalesce(max(xid) < pg_snapshot_xmin(pg_current_snapshot()), true) AS settled
         FROM outbox_events`,
    );
    if (rows[0]?.settled) return;
    if (Date.now() > deadline) {
      throw new Error(
        `A transaction older than the last event was still open after ${SETTLE_GUARD_MS / 1000} s.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
