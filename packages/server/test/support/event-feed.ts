import type { Queryable } from '../../src/storage/database.js';
import { transactionsSettled } from './database.js';

/**
 * Waits until the event feed shows every event written so far: on PostgreSQL the feed shows an
 * event once every transaction older than the event's own has ended, anywhere on the server
 * (see {@link transactionsSettled}, which this waits for); on PGlite it is settled at once.
 */
export async function settledFeed(database: Queryable): Promise<void> {
  await transactionsSettled(database);
}
