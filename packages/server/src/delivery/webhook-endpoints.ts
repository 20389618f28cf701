import { recordAuditEntry } from '../audit/audit-log.js';
import { type Clock, systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import {
  ALL_EVENTS,
  deleteEndpoint,
  type EndpointFields,
  type EndpointRow,
  findEndpointRow,
  insertEndpoint,
  listEndpointRows,
  rotateEndpointSecret,
  setEndpointState,
  updateEndpointFields,
} from '../stores/webhook-endpoint-store.js';
import { checkEndpointUrl } from './endpoint-address.js';
import { type EndpointChange, type EndpointSettingsInput, settingsOf } from './endpoint-change.js';
import { endpointStatus, recordEndpointEvent } from './endpoint-events.js';
import { parseEventList } from './event-list.js';
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  generateSigningSecret,
  MAX_ROTATION_OVERLAP_SECONDS,
} from './signing-secrets.js';
import { toInfo, type WebhookEndpointInfo } from './webhook-endpoint-info.js';

/** The kinds an endpoint takes: `*` among them (or none given) is every kind, later ones too. */
function eventsOf(events: readonly string[] | undefined): string[] {
  return events?.includes(ALL_EVENTS) ? [ALL_EVENTS] : parseEventList(events?.join(','));
}

function notFound(id: string): FollowUpServerError {
  return new FollowUpServerError({
    code: 'endpoint_not_found',
    message: `No webhook endpoint ${id}.`,
  });
}

/**
 * @internal The operator's webhook endpoints (subscriptions): add, list, disable, rotate the
 * signing secret, remove. A secret is returned once, when it is made. Every change is audited
 * (`endpoint.created`, `endpoint.disabled`, `endpoint.enabled`, `endpoint.secret_rotated`,
 * `endpoint.removed`), by the operator unless another actor is passed; a change of state is
 * announced too, as the `endpoint.disabled` and `endpoint.enabled` events.
 */
export function createEndpointStore(options: {
  database: Database;
  clock?: Clock;
  newId?: IdGenerator;
  /** Told after a commit that wrote an `endpoint.disabled` or `endpoint.enabled` event. */
  onOutboxEvent?: (() => void) | undefined;
  /**
   * The server's address policy, for the API and the console: unless `allowPrivate`
   * (`--allow-private-endpoints`), a URL whose host is a loopback, private, link-local or
   * reserved address written as one is `invalid_endpoint_url` (see `checkEndpointUrl`). Without
   * it (the operator's CLI, fixtures) only the URL's form is checked here, and the worker judges
   * the address at each attempt, as it always does.
   */
  addressPolicy?: { allowPrivate: boolean };
}) {
  const { database } = options;
  const addressPolicy = options.addressPolicy ?? { allowPrivate: true };
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? createIdGenerator({ now: () => clock.now() });

  // Every change is audited as `endpoint.<action>`, in the change's transaction; the actor is
  // the operator unless the caller says who (a user of the web application).
  const operator: AuditActor = { type: 'operator' };
  function audit(
    transaction: Queryable,
    action: string,
    id: string,
    actor: AuditActor,
    metadata: Record<string, unknown> = {},
  ) {
    return recordAuditEntry(
      transaction,
      { action: `endpoint.${action}`, actor, target: { type: 'webhook_endpoint', id }, metadata },
      { clock, newId },
    );
  }

  async function updateOne(
    update: (transaction: Queryable) => Promise<EndpointRow | undefined>,
    id: string,
    change: { action: string; actor: AuditActor; metadata?: Record<string, unknown> },
  ) {
    return database.transaction(async (transaction) => {
      const row = await update(transaction);
      if (!row) throw notFound(id);
      await audit(transaction, change.action, id, change.actor, change.metadata);
      return toInfo(row, clock.now());
    });
  }

  // A person's decision replaces the server's, and a new start forgets the failures. Audited as
  // asked; announced (`endpoint.disabled` with the reason `manual`, `endpoint.enabled`) only when
  // the state changed, in the same transaction.
  async function changeState(
    transaction: Queryable,
    id: string,
    state: 'active' | 'disabled',
    actor: AuditActor,
  ): Promise<{ row: EndpointRow; announced: boolean }> {
    const row = await setEndpointState(transaction, { id, state, now: new Date(clock.now()) });
    if (!row) throw notFound(id);
    await audit(transaction, state === 'active' ? 'enabled' : 'disabled', id, actor);
    if (row.previous_state === state) return { row, announced: false };
    await recordEndpointEvent(
      transaction,
      state === 'active'
        ? { kind: 'endpoint.enabled', status: endpointStatus(row) }
        : { kind: 'endpoint.disabled', status: endpointStatus(row, { reason: 'manual' }) },
      { clock, newId },
    );
    return { row, announced: true };
  }

  async function setState(id: string, state: 'active' | 'disabled', actor: AuditActor) {
    const { row, announced } = await database.transaction((transaction) =>
      changeState(transaction, id, state, actor),
    );
    if (announced) options.onOutboxEvent?.();
    return toInfo(row, clock.now());
  }

  return {
    /**
     * Subscribes a URL to event kinds (by default `['*']`: every kind, later ones included);
     * returns its secret once.
     */
    async add(
      input: { url: string; events?: readonly string[] | undefined } & EndpointSettingsInput,
      actor: AuditActor = operator,
    ): Promise<WebhookEndpointInfo & { secret: string }> {
      const url = checkEndpointUrl(input.url, addressPolicy).href;
      const events = eventsOf(input.events);
      const id = newId('we');
      const secret = generateSigningSecret();
      const now = new Date(clock.now());
      const settings = settingsOf(input);
      const row = await database.transaction(async (transaction) => {
        const inserted = await insertEndpoint(transaction, {
          id,
          url,
          events,
          secret,
          now,
          settings,
        });
        // The names of the settings given, never their values (a static header may be a key).
        await audit(transaction, 'created', id, actor, {
          url,
          events,
          ...(input.subscriber ? { subscriber: input.subscriber } : {}),
          ...(Object.keys(settings).length > 0 ? { settings: Object.keys(settings) } : {}),
        });
        return inserted;
      });
      return { ...toInfo(row, clock.now()), secret };
    },

    /** Every endpoint, oldest first; never a secret. */
    async list(): Promise<WebhookEndpointInfo[]> {
      const rows = await listEndpointRows(database);
      return rows.map((row) => toInfo(row, clock.now()));
    },

    /** One endpoint, or `undefined` when no endpoint has this id; never a secret. */
    async get(id: string): Promise<WebhookEndpointInfo | undefined> {
      const row = await findEndpointRow(database, id);
      return row ? toInfo(row, clock.now()) : undefined;
    },

    /**
     * Changes an endpoint's URL, kinds and settings (audited as `endpoint.updated` with the
     * names of the fields, never their values) and its state (`endpoint.disabled` or
     * `endpoint.enabled`, as {@link disable} and {@link enable}), in one transaction.
     */
    async update(
      id: string,
      change: EndpointChange,
      actor: AuditActor = operator,
    ): Promise<WebhookEndpointInfo> {
      const fields: EndpointFields = settingsOf(change);
      if (change.url !== undefined) fields.url = checkEndpointUrl(change.url, addressPolicy).href;
      if (change.events !== undefined) fields.events = eventsOf(change.events);
      const now = new Date(clock.now());
      let announced = false;
      const info = await database.transaction(async (transaction) => {
        let row: EndpointRow | undefined;
        const names = Object.keys(fields);
        if (names.length > 0) {
          row = await updateEndpointFields(transaction, { id, fields, now });
          if (!row) throw notFound(id);
          await audit(transaction, 'updated', id, actor, { fields: names });
        }
        if (change.state !== undefined) {
          ({ row, announced } = await changeState(transaction, id, change.state, actor));
        }
        row ??= await findEndpointRow(transaction, id);
        if (!row) throw notFound(id);
        return toInfo(row, clock.now());
      });
      if (announced) options.onOutboxEvent?.();
      return info;
    },

    /** Stops deliveries to an endpoint; its pending deliveries wait until it is enabled again. */
    disable(id: string, actor: AuditActor = operator): Promise<WebhookEndpointInfo> {
      return setState(id, 'disabled', actor);
    },

    /** Delivers to an endpoint again, the deliveries that waited included. */
    enable(id: string, actor: AuditActor = operator): Promise<WebhookEndpointInfo> {
      return setState(id, 'active', actor);
    },

    /**
     * Gives the endpoint a new secret, returned once; the old one keeps signing beside it (one
     * `v1` each) for `overlapSeconds` (0 ends it at once).
     */
    async rotateSecret(
      id: string,
      overlapSeconds: number = DEFAULT_ROTATION_OVERLAP_SECONDS,
      actor: AuditActor = operator,
    ): Promise<WebhookEndpointInfo & { secret: string }> {
      if (
        !Number.isInteger(overlapSeconds) ||
        overlapSeconds < 0 ||
        overlapSeconds > MAX_ROTATION_OVERLAP_SECONDS
      ) {
        throw new FollowUpServerError({
          code: 'invalid_overlap',
          message: `The overlap is a whole number of seconds from 0 to ${MAX_ROTATION_OVERLAP_SECONDS}.`,
        });
      }
      const secret = generateSigningSecret();
      const now = clock.now();
      const info = await updateOne(
        (transaction) =>
          rotateEndpointSecret(transaction, {
            id,
            secret,
            previousUntil: new Date(now + overlapSeconds * 1000),
            now: new Date(now),
          }),
        id,
        { action: 'secret_rotated', actor, metadata: { overlapSeconds } },
      );
      return { ...info, secret };
    },

    /**
     * Deletes an endpoint with its deliveries and their attempts: its pending deliveries are
     * cancelled (never sent). Answers how many were; audited with that count.
     */
    async remove(id: string, actor: AuditActor = operator): Promise<{ cancelled: number }> {
      return database.transaction(async (transaction) => {
        const removed = await deleteEndpoint(transaction, id);
        if (!removed) throw notFound(id);
        await audit(transaction, 'removed', id, actor, { cancelledDeliveries: removed.cancelled });
        return removed;
      });
    },
  };
}

/** @internal The store returned by {@link createEndpointStore}. */
export type EndpointStore = ReturnType<typeof createEndpointStore>;
