import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';
import { recordAttemptBatch } from '../stores/attempt-record-store.js';
import { contactTable } from '../stores/contact-store.js';
import { type ClaimedRow, claimDueDeliveries } from '../stores/delivery-claim-store.js';
import { insertDeliveriesOfEvents, takeUndispatchedEvents } from '../stores/fan-out-store.js';
import { resourceCreate } from '../stores/resource-create.js';
import { insertEndpoint } from '../stores/webhook-endpoint-store.js';
import { claimedDeliveryRequest } from './delivery-attempt.js';
import { type DeliveryAttemptResult, postDelivery } from './post-delivery.js';
import { generateSigningSecret } from './signing-secrets.js';

/** @internal How much {@link warmUpDelivery} does, and for how long at most. */
export interface DeliveryWarmUpOptions {
  clock: Clock;
  newId: IdGenerator;
  /** Rounds of the path (30): each creates `creates` contacts and delivers their events. */
  rounds?: number;
  /** Contacts created per round (2). */
  creates?: number;
  /** Endpoints subscribed to `contact.created` for the warm-up's length only (10). */
  endpoints?: number;
  /** No round starts once this many milliseconds have passed (2,000). */
  budgetMs?: number;
  /** Monotonic milliseconds, for the budget; `performance.now` by default. */
  now?: () => number;
}

/** @internal What {@link warmUpDelivery} did. */
export interface DeliveryWarmUp {
  /** Rounds run. */
  rounds: number;
  /** Webhooks made: signed, posted to the warm-up's own receiver and answered 204. */
  webhooks: number;
}

/** Thrown to roll the warm-up's transaction back. */
class WarmUpDone extends Error {}

/** Answers every request 204 once its body is read: the warm-up's endpoints, in this process. */
async function startSink(): Promise<{ url: string; close: () => void }> {
  const sink = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.statusCode = 204;
      response.end();
    });
  });
  sink.listen(0, '127.0.0.1');
  await once(sink, 'listening');
  const { port } = sink.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/warm-up`,
    close: () => {
      sink.closeAllConnections();
      sink.close();
    },
  };
}

/**
 * @internal Runs what a contact's create and the delivery of its event run (the create's
 * statement, the fan-out, the claim, the signed request posted over HTTP, the attempt's record),
 * `rounds` times, so that a new server on PGlite meets its first requests with that code compiled
 * and optimized: the engine's WebAssembly and our JavaScript are compiled when first run and
 * optimized only after many runs, and a server loaded at once from its start ran its first
 * seconds two to three times slower (see the README's "Delivery at scale").
 *
 * Nothing is kept and nothing leaves the process: every statement runs in one transaction that is
 * rolled back, with endpoints of its own that point to a receiver of its own on loopback. Only
 * those endpoints' deliveries are posted; anything real the statements meet (events still to fan
 * out, deliveries due) is handled inside the transaction and rolled back with it, never sent. For
 * a database no other process uses yet (PGlite, before the server listens and its worker
 * starts): on a shared one the transaction would hold others' rows while it runs.
 */
export async function warmUpDelivery(
  database: Database,
  options: DeliveryWarmUpOptions,
): Promise<DeliveryWarmUp> {
  const { clock, newId } = options;
  const rounds = options.rounds ?? 30;
  const creates = options.creates ?? 2;
  const endpointCount = options.endpoints ?? 10;
  const now = options.now ?? (() => performance.now());
  const deadline = now() + (options.budgetMs ?? 2_000);
  const create = resourceCreate(contactTable({ clock, newId, onOutboxEvent: () => {} }), {
    clock,
    newId,
  });
  const sink = await startSink();
  const done: DeliveryWarmUp = { rounds: 0, webhooks: 0 };

  // Each look takes what a round made, at most: the statements take the oldest work first, so
  // with real events or deliveries waiting (a restart after an outage) a round handles a few of
  // those, rolled back, instead of its own, and costs no more than a round without them.
  async function deliver(transaction: Queryable, ours: Set<string>): Promise<void> {
    const moment = new Date(clock.now());
    const found = await takeUndispatchedEvents(transaction, { now: moment, limit: creates });
    if (found !== undefined && found.pair_event_ids.length > 0) {
      const ids = found.pair_event_ids.map(() => newId('dlv'));
      await insertDeliveriesOfEvents(transaction, { ids, found, now: moment });
    }
    const claimed = await claimDueDeliveries(transaction, {
      now: clock.now(),
      leaseMs: 30_000,
      limit: creates * endpointCount,
      endpointConcurrency: creates,
      busyEndpoints: [],
      busyCounts: [],
    });
    // Only the warm-up's own deliveries are sent; a real one claimed here is rolled back unsent.
    const rows = claimed.filter((row) => ours.has(row.endpoint_id));
    const startedAt = clock.now();
    const results = await Promise.all(rows.map((row) => post(row, startedAt)));
    if (rows.length === 0) return;
    const ended = new Date(clock.now());
    await recordAttemptBatch(transaction, {
      attempts: rows.map((row, index) => ({
        deliveryId: row.id,
        startedAt: new Date(startedAt),
        durationMs: results[index]?.durationMs ?? 0,
        status: results[index]?.status ?? null,
        error: results[index]?.error ?? null,
        responseExcerpt: null,
      })),
      outcomes: rows.map((row, index) => ({
        id: row.id,
        leaseUntil: row.lease_until,
        state: results[index]?.outcome === 'delivered' ? 'delivered' : 'dead',
        nextAttemptAt: null,
        status: results[index]?.status ?? null,
        error: results[index]?.error ?? null,
        now: ended,
      })),
      unlessFailing: rows.map((row) => row.endpoint_id),
    });
    done.webhooks += results.filter((result) => result.outcome === 'delivered').length;
  }

  function post(row: ClaimedRow, startedAt: number): Promise<DeliveryAttemptResult> {
    const request = claimedDeliveryRequest(row, startedAt);
    return postDelivery({
      url: row.url,
      body: request.body,
      headers: request.headers,
      timeoutMs: 5_000,
      allowPrivate: true,
    });
  }

  try {
    await database.transaction(async (transaction) => {
      const ours = new Set<string>();
      // Registered a second before the events, which an endpoint takes only from its start on.
      const registered = new Date(clock.now() - 1_000);
      for (let index = 0; index < endpointCount; index += 1) {
        const endpoint = await insertEndpoint(transaction, {
          id: newId('we'),
          url: sink.url,
          events: ['contact.created'],
          secret: generateSigningSecret(),
          now: registered,
        });
        ours.add(endpoint.id);
      }
      while (done.rounds < rounds && now() < deadline) {
        for (let index = 0; index < creates; index += 1) {
          await create(database, {
            actor: { type: 'system' },
            body: { firstName: 'Warm-up', lastName: `${done.rounds}.${index}` },
            transaction,
          });
        }
        await deliver(transaction, ours);
        done.rounds += 1;
      }
      throw new WarmUpDone();
    });
  } catch (error) {
    if (!(error instanceof WarmUpDone)) throw error;
  } finally {
    sink.close();
  }
  return done;
}
