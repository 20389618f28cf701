import type { Clock } from '../clock.js';
import {
  createDeliveryStore,
  type DeliveryAttemptInfo,
  type DeliveryInfo,
  deliveryInfoOf,
} from '../delivery/deliveries.js';
import { type DeliveryAsSent, deliveryAsSent } from '../delivery/delivery-detail.js';
import type { EndpointChange, EndpointSettingsInput } from '../delivery/endpoint-change.js';
import { retryDelivery } from '../delivery/retry-delivery.js';
import { sendTestEvent } from '../delivery/test-event.js';
import { toInfo, type WebhookEndpointInfo } from '../delivery/webhook-endpoint-info.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import {
  type ReplayRequest,
  readReplayProgress,
  replayEvents,
} from '../delivery/webhook-replay.js';
import { FollowUpServerError } from '../errors.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import {
  type DeliveryPageRead,
  findDeliveryContent,
  readDeliveryPage,
} from '../stores/delivery-list-store.js';
import { findReplayEndpointId } from '../stores/portal-store.js';
import { readEndpointPage } from '../stores/webhook-endpoint-list-store.js';

// What a portal session may do, each through the same function as `/api`, the console and the
// CLI (the endpoint store, sendTestEvent, the delivery store, replayEvents), audited with the
// portal actor. Every id is first checked to belong to the session's subscriber: anything else is
// "not found", exactly as an id that does not exist, so that a subscriber learns nothing of
// another's endpoints or deliveries.

function endpointNotFound(id: string): FollowUpServerError {
  return new FollowUpServerError({
    code: 'endpoint_not_found',
    message: `No webhook endpoint ${id}.`,
  });
}

function deliveryNotFound(id: string): FollowUpServerError {
  return new FollowUpServerError({ code: 'delivery_not_found', message: `No delivery ${id}.` });
}

function replayNotFound(id: string): FollowUpServerError {
  return new FollowUpServerError({ code: 'replay_not_found', message: `No replay ${id}.` });
}

/** @internal A delivery with what it sends and its attempts, as the portal shows it. */
export interface PortalDelivery extends DeliveryInfo, DeliveryAsSent {
  attempts: number;
  attemptList: DeliveryAttemptInfo[];
}

/** @internal A page of the portal's keyset lists (`created_at, id`). */
export interface PortalPage<Item> {
  items: Item[];
  /** Where the next page starts, or `undefined` on the last page. */
  next: { createdAt: string; id: string } | undefined;
}

function pageOfRows<Row extends { id: string; cursor_at: string }, Item>(
  rows: readonly Row[],
  limit: number,
  map: (row: Row) => Item,
): PortalPage<Item> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(map),
    next: rows.length > limit && last ? { createdAt: last.cursor_at, id: last.id } : undefined,
  };
}

/**
 * @internal The subscriber portal's actions, each scoped to one subscriber: endpoints (list, get,
 * add with the subscriber's key, update, disable, enable, remove, rotate the secret, send a test),
 * deliveries (list, get with body and attempts, retry) and replays (start, progress).
 */
export function createPortalActions(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  /** Whether endpoints may have private addresses (`--allow-private-endpoints`), as in the API. */
  allowPrivateEndpoints?: boolean;
  /** Wakes the delivery worker after a retry, a disable or an enable, as the API's do. */
  onOutboxEvent: () => void;
}) {
  const { database, clock, newId, onOutboxEvent } = options;
  // A subscriber is an outsider: the server's address policy applies to it as to the API.
  const endpoints = createEndpointStore({
    database,
    clock,
    newId,
    // A disable or enable writes an endpoint.* event: the worker hears of it at once.
    onOutboxEvent,
    addressPolicy: { allowPrivate: options.allowPrivateEndpoints === true },
  });
  const deliveries = createDeliveryStore({ database, clock, newId });
  const actorOf = (subscriber: string): AuditActor => ({ type: 'portal', subscriber });

  async function ownEndpoint(subscriber: string, id: string): Promise<WebhookEndpointInfo> {
    const endpoint = await endpoints.get(id);
    if (!endpoint || endpoint.subscriber !== subscriber) throw endpointNotFound(id);
    return endpoint;
  }

  async function ownDelivery(subscriber: string, id: string): Promise<DeliveryInfo> {
    const delivery = await deliveries.get(id);
    if (!delivery) throw deliveryNotFound(id);
    const endpoint = await endpoints.get(delivery.endpointId);
    if (!endpoint || endpoint.subscriber !== subscriber) throw deliveryNotFound(id);
    return delivery;
  }

  return {
    ownEndpoint,

    /** The subscriber's endpoints, oldest first, `limit` at a time. */
    async listEndpoints(
      subscriber: string,
      read: { after: { createdAt: string; id: string } | undefined; limit: number },
    ): Promise<PortalPage<WebhookEndpointInfo>> {
      const rows = await readEndpointPage(database, { subscriber, state: undefined, ...read });
      const now = clock.now();
      return pageOfRows(rows, read.limit, (row) => toInfo(row, now));
    },

    /** Adds an endpoint with the subscriber's key (whatever the input says); its secret once. */
    addEndpoint(
      subscriber: string,
      input: { url: string; events?: readonly string[] | undefined } & EndpointSettingsInput,
    ) {
      return endpoints.add({ ...input, subscriber }, actorOf(subscriber));
    },

    /** Changes an endpoint of the subscriber; never its subscriber key. */
    async updateEndpoint(subscriber: string, id: string, change: EndpointChange) {
      await ownEndpoint(subscriber, id);
      const { subscriber: _ignored, ...rest } = change;
      return endpoints.update(id, rest, actorOf(subscriber));
    },

    async disableEndpoint(subscriber: string, id: string) {
      await ownEndpoint(subscriber, id);
      return endpoints.disable(id, actorOf(subscriber));
    },

    async enableEndpoint(subscriber: string, id: string) {
      await ownEndpoint(subscriber, id);
      return endpoints.enable(id, actorOf(subscriber));
    },

    async removeEndpoint(subscriber: string, id: string) {
      await ownEndpoint(subscriber, id);
      return endpoints.remove(id, actorOf(subscriber));
    },

    async rotateSecret(subscriber: string, id: string) {
      await ownEndpoint(subscriber, id);
      return endpoints.rotateSecret(id, undefined, actorOf(subscriber));
    },

    async sendTest(subscriber: string, id: string) {
      await ownEndpoint(subscriber, id);
      return sendTestEvent(database, { endpointId: id, clock, newId, actor: actorOf(subscriber) });
    },

    /** The deliveries to the subscriber's endpoints, oldest first, filtered. */
    async listDeliveries(
      subscriber: string,
      read: Omit<DeliveryPageRead, 'subscriber' | 'createdAfter' | 'createdBefore'>,
    ): Promise<PortalPage<DeliveryInfo>> {
      const rows = await readDeliveryPage(database, {
        ...read,
        subscriber,
        createdAfter: undefined,
        createdBefore: undefined,
      });
      return pageOfRows(rows, read.limit, deliveryInfoOf);
    },

    /** A delivery to one of the subscriber's endpoints, with what it sends and its attempts. */
    async getDelivery(subscriber: string, id: string): Promise<PortalDelivery> {
      const delivery = await ownDelivery(subscriber, id);
      const [content, attemptList] = await Promise.all([
        findDeliveryContent(database, id),
        deliveries.attempts(id),
      ]);
      if (!content) throw deliveryNotFound(id);
      return { ...delivery, ...deliveryAsSent(delivery, content, clock.now()), attemptList };
    },

    async retryDelivery(subscriber: string, id: string) {
      await ownDelivery(subscriber, id);
      return retryDelivery(deliveries, id, {
        actor: actorOf(subscriber),
        force: true,
        onOutboxEvent,
      });
    },

    async replay(subscriber: string, replay: ReplayRequest) {
      await ownEndpoint(subscriber, replay.endpointId);
      return replayEvents(database, { replay, clock, newId, actor: actorOf(subscriber) });
    },

    async replayProgress(subscriber: string, id: string) {
      const endpointId = await findReplayEndpointId(database, id);
      if (endpointId === undefined) throw replayNotFound(id);
      const endpoint = await endpoints.get(endpointId);
      if (!endpoint || endpoint.subscriber !== subscriber) throw replayNotFound(id);
      const progress = await readReplayProgress(database, id);
      if (!progress) throw replayNotFound(id);
      return { ...progress, endpointId };
    },
  };
}

/** @internal The actions returned by {@link createPortalActions}. */
export type PortalActions = ReturnType<typeof createPortalActions>;
