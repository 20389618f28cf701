import type { Database } from '../storage/database.js';
import { notifyOutboxListeners } from '../stores/outbox-store.js';

/**
 * @internal After an operator's command left the delivery workers work (an endpoint disabled
 * or enabled, with its `endpoint.*` event; a delivery due again), tells the workers of the
 * servers running on the database, as a server's own route does: on PostgreSQL through the
 * outbox notification they listen for, so that they look now rather than at their next poll.
 * On PGlite no server can be running: the command holds the data directory, and a server's
 * worker looks when it starts.
 */
export async function wakeRunningWorkers(database: Database): Promise<void> {
  if (database.driver === 'postgres') await notifyOutboxListeners(database);
}
