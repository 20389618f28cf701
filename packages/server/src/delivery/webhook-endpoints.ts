import { recordAuditEntry } from '../audit/audit-log.js';
import { type Clock, systemClock } from '../clock.js';
import { FollowUpServerError } from '../errors.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import type { Database, Queryable } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import {
  deleteEndpoint,
  type EndpointRow,
  findEndpointRow,
  insertEndpoint,
  listEndpointRows,
  rotateEndpointSecret,
  setEndpointState,
} from '../stores/webhook-endpoint-store.js';
import { checkEndpointUrl } from './endpoint-address.js';
import { parseEventList } from './event-list.js';
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  generateSigningSecret,
  MAX_ROTATION_OVERLAP_SECONDS,
} from './signing-secrets.js';

/** @internal An endpoint as the operator sees it: never its secrets. */
export interface WebhookEndpointInfo {
  id: string;
  url: string;
  events: string[];
  state: 'active' | 'disabled';
  /**
   * Why the server disabled it: `gone` (the subscriber answered 410) or `failing` (every attempt
   * failed for the auto-disable period); `null` when active or disabled by a person.
   */
  disabledReason: 'gone' | 'failing' | null;
  /** Since when every attempt has failed, or `null` after a success. */
  failingSince: string | null;
  /** Until when the previous secret still signs (a rotation's overlap), or `null`. */
  previousSecretUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

function toInfo(row: EndpointRow, now: number): WebhookEndpointInfo {
  const until = row.previous_secret_until;
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    state: row.state,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    previousSecretUntil: until !== null && Date.parse(until) > now ? until : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
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
 * `endpoint.removed`), by the operator unless another actor is passed.
 */
export function createEndpointStore(options: {
  database: Database;
  clock?: Clock;
  newId?: IdGenerator;
}) {
  const { database } = options;
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

  function setState(id: string, state: 'active' | 'disabled', actor: AuditActor) {
    return updateOne(
      // A person's decision replaces the server's, and a new start forgets the failures.
      (transaction) => setEndpointState(transaction, { id, state, now: new Date(clock.now()) }),
      id,
      { action: state === 'active' ? 'enabled' : 'disabled', actor },
    );
  }

  return {
    /**
     * Subscribes a URL to event kinds (by default `['*']`: every kind, later ones included);
     * returns its secret once.
     */
    async add(
      input: {
        url: string;
        events?: readonly string[];
      },
      actor: AuditActor = operator,
    ): Promise<WebhookEndpointInfo & { secret: string }> {
      const url = checkEndpointUrl(input.url).href;
      const events = parseEventList(input.events?.join(','));
      const id = newId('we');
      const secret = generateSigningSecret();
      const now = new Date(clock.now());
      const row = await database.transaction(async (transaction) => {
        const inserted = await insertEndpoint(transaction, { id, url, events, secret, now });
        await audit(transaction, 'created', id, actor, { url, events });
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

    /** Deletes an endpoint with its deliveries and their attempts. */
    async remove(id: string, actor: AuditActor = operator): Promise<void> {
      await database.transaction(async (transaction) => {
        if (!(await deleteEndpoint(transaction, id))) throw notFound(id);
        await audit(transaction, 'removed', id, actor);
      });
    },
  };
}

/** @internal The store returned by {@link createEndpointStore}. */
export type EndpointStore = ReturnType<typeof createEndpointStore>;
