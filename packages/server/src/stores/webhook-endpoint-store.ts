import { ENDPOINT_EVENT_KINDS } from '@followup/sdk';
import type { Queryable } from '../storage/database.js';

// The statements of `webhook_endpoints`: the operator's changes (delivery/webhook-endpoints.ts)
// and the one decision of which endpoints take an event. The worker's record of an endpoint's
// health (delivery/endpoint-health.ts) is endpoint-health-store.ts.

/**
 * What an endpoint subscribed to every kind stores as its events: it receives the kinds added in
 * later releases too, unlike an endpoint that listed its kinds.
 */
export const ALL_EVENTS = '*';

// The operational kinds, as an SQL array literal: written from the wire contract's list (plain
// dotted names, no quote among them), so that the SQL keeps no copy of it.
const endpointKinds = `ARRAY[${ENDPOINT_EVENT_KINDS.map((kind) => `'${kind}'`).join(', ')}]::text[]`;

/**
 * @internal The SQL condition that the endpoint row `endpoint` subscribes to an event of kind
 * `kind` whose data is `data` (SQL expressions; `data` a `jsonb`). A kind of data is taken by the
 * endpoints listing it or every kind (`*`). An operational kind (`endpoint.*`, the SDK's
 * `ENDPOINT_EVENT_KINDS`) is taken only by the endpoints listing it, never by the endpoint it is
 * about (`data.id`), and, by an endpoint with a subscriber, only about that subscriber's
 * endpoints: a subscriber's alerts never name another's URLs. Shared by the outbox's decision
 * ({@link endpointsTakingEvent}) and a replay's choice of events.
 */
export function endpointSubscribes(endpoint: string, kind: string, data: string): string {
  return `(CASE WHEN ${kind}::text = ANY (${endpointKinds})
                THEN ${kind}::text = ANY (${endpoint}.events)
                     AND ${endpoint}.id <> coalesce(${data}->>'id', '')
                     AND (${endpoint}.subscriber IS NULL
                          OR ${endpoint}.subscriber = ${data}->>'subscriber')
                ELSE ${kind}::text = ANY (${endpoint}.events)
                     OR '${ALL_EVENTS}' = ANY (${endpoint}.events) END)`;
}

/**
 * @internal The SQL expression (a `text[]`) of the endpoints that take an event of kind `kind`
 * whose data is `data` and that happens at `createdAt` (SQL expressions): those active,
 * subscribed to it ({@link endpointSubscribes}) and added no later than the event, in the order
 * they were added. The one place that decides it: the outbox records the answer in the event as
 * it is written (`outboxEventPart`), and the fan-out makes the deliveries of the endpoints
 * recorded there, without deciding again.
 */
export function endpointsTakingEvent(kind: string, createdAt: string, data: string): string {
  return `ARRAY(SELECT endpoint.id FROM webhook_endpoints AS endpoint
                 WHERE endpoint.state = 'active'
                   AND ${endpointSubscribes('endpoint', kind, data)}
                   AND endpoint.created_at <= ${createdAt}::timestamptz
                 ORDER BY endpoint.created_at, endpoint.id)`;
}

/**
 * @internal The settings of an endpoint beside its URL and kinds (migration 28), as stored:
 * what it is for, whose it is, and how deliveries go to it.
 */
export interface EndpointSettings {
  description: string | null;
  subscriber: string | null;
  headers: Record<string, string>;
  rate_limit: number | null;
  timeout_seconds: number;
  payload: 'full' | 'thin';
}

/** @internal An endpoint's row as the operator's statements read it: never its secrets. */
export interface EndpointRow extends EndpointSettings {
  id: string;
  url: string;
  events: string[];
  state: 'active' | 'disabled';
  disabled_reason: 'gone' | 'failing' | null;
  failing_since: string | null;
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
}

/** @internal The columns of {@link EndpointRow}, for the statements that read one. */
export const infoColumns =
  'id, url, events, state, disabled_reason, failing_since, previous_secret_until, created_at, ' +
  'updated_at, description, subscriber, headers, rate_limit, timeout_seconds, payload';

/** @internal Inserts an active endpoint; answers its row. */
export async function insertEndpoint(
  queryable: Queryable,
  endpoint: {
    id: string;
    url: string;
    events: string[];
    secret: string;
    now: Date;
    settings?: Partial<EndpointSettings>;
  },
): Promise<EndpointRow> {
  const { id, url, events, secret, now } = endpoint;
  const settings = endpoint.settings ?? {};
  const { rows } = await queryable.query<EndpointRow>(
    `INSERT INTO webhook_endpoints
           (id, url, events, state, secret, created_at, updated_at, description, subscriber,
            headers, rate_limit, timeout_seconds, payload)
           VALUES ($1, $2, $3, 'active', $4, $5, $5, $6, $7, coalesce($8::jsonb, '{}'), $9,
                   coalesce($10::int, 15), coalesce($11::text, 'full'))
        RETURNING ${infoColumns}`,
    [
      id,
      url,
      events,
      secret,
      now,
      settings.description ?? null,
      settings.subscriber ?? null,
      settings.headers === undefined ? null : JSON.stringify(settings.headers),
      settings.rate_limit ?? null,
      settings.timeout_seconds ?? null,
      settings.payload ?? null,
    ],
  );
  return rows[0] as EndpointRow;
}

/** @internal What {@link updateEndpointFields} may change: these columns, by name. */
export type EndpointFields = Partial<EndpointSettings & { url: string; events: string[] }>;

// The columns a change may set, with the cast of their placeholder: a whitelist, so that a name
// never reaches the statement from anywhere else.
const changeableColumns: Readonly<Record<keyof EndpointFields, string>> = {
  url: 'text',
  events: 'text[]',
  description: 'text',
  subscriber: 'text',
  headers: 'jsonb',
  rate_limit: 'int',
  timeout_seconds: 'int',
  payload: 'text',
};

/**
 * @internal Sets the given fields of an endpoint (the others as they are) and its `updated_at`;
 * `undefined` when no endpoint has this id.
 */
export async function updateEndpointFields(
  queryable: Queryable,
  change: { id: string; fields: EndpointFields; now: Date },
): Promise<EndpointRow | undefined> {
  const values: unknown[] = [change.id, change.now];
  const sets = ['updated_at = $2'];
  for (const [column, cast] of Object.entries(changeableColumns)) {
    const value = change.fields[column as keyof EndpointFields];
    if (value === undefined) continue;
    values.push(column === 'headers' ? JSON.stringify(value) : value);
    sets.push(`${column} = $${values.length}::${cast}`);
  }
  const { rows } = await queryable.query<EndpointRow>(
    `UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = $1 RETURNING ${infoColumns}`,
    values,
  );
  return rows[0];
}

/** @internal Every endpoint, oldest first. */
export async function listEndpointRows(queryable: Queryable): Promise<EndpointRow[]> {
  const { rows } = await queryable.query<EndpointRow>(
    `SELECT ${infoColumns} FROM webhook_endpoints ORDER BY created_at, id`,
  );
  return rows;
}

/** @internal The endpoint with this id, or `undefined`. */
export async function findEndpointRow(
  queryable: Queryable,
  id: string,
): Promise<EndpointRow | undefined> {
  const { rows } = await queryable.query<EndpointRow>(
    `SELECT ${infoColumns} FROM webhook_endpoints WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/**
 * @internal Sets an endpoint's state by a person's decision, which replaces the server's (no
 * `disabled_reason`) and forgets the failures; answers the endpoint with the state it had
 * (`previous_state`, read under the row's lock, so that of two people disabling it at once only
 * one sees it change), or `undefined` when no endpoint has this id.
 */
export async function setEndpointState(
  queryable: Queryable,
  change: { id: string; state: 'active' | 'disabled'; now: Date },
): Promise<(EndpointRow & { previous_state: EndpointRow['state'] }) | undefined> {
  const columns = infoColumns
    .split(', ')
    .map((column) => `endpoint.${column}`)
    .join(', ');
  const { rows } = await queryable.query<EndpointRow & { previous_state: EndpointRow['state'] }>(
    `WITH before AS (SELECT id, state FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE)
     UPDATE webhook_endpoints AS endpoint
        SET state = $3, updated_at = $2, disabled_reason = NULL, failing_since = NULL
       FROM before WHERE endpoint.id = before.id
     RETURNING ${columns}, before.state AS previous_state`,
    [change.id, change.now, change.state],
  );
  return rows[0];
}

/**
 * @internal Gives an endpoint a new secret, the current one signing beside it until
 * `previousUntil`; `undefined` when no endpoint has this id.
 */
export async function rotateEndpointSecret(
  queryable: Queryable,
  change: { id: string; secret: string; previousUntil: Date; now: Date },
): Promise<EndpointRow | undefined> {
  const { rows } = await queryable.query<EndpointRow>(
    `UPDATE webhook_endpoints
            SET previous_secret = secret, previous_secret_until = $3, secret = $2, updated_at = $4
          WHERE id = $1 RETURNING ${infoColumns}`,
    [change.id, change.secret, change.previousUntil, change.now],
  );
  return rows[0];
}

/**
 * @internal Deletes an endpoint with its deliveries and their attempts (`ON DELETE CASCADE`):
 * its pending deliveries are cancelled, never sent. Answers how many were pending, or
 * `undefined` when no endpoint has this id.
 */
export async function deleteEndpoint(
  queryable: Queryable,
  id: string,
): Promise<{ cancelled: number } | undefined> {
  // The statement's snapshot still sees the deliveries the cascade removes.
  const { rows } = await queryable.query<{ cancelled: number }>(
    `WITH gone AS (DELETE FROM webhook_endpoints WHERE id = $1 RETURNING id)
     SELECT (SELECT count(*) FROM deliveries
              WHERE endpoint_id IN (SELECT id FROM gone) AND state = 'pending')::int AS cancelled
       FROM gone`,
    [id],
  );
  return rows[0];
}

/** @internal Whether an endpoint has this id. */
export async function endpointExists(queryable: Queryable, id: string): Promise<boolean> {
  const endpoint = await queryable.query('SELECT id FROM webhook_endpoints WHERE id = $1', [id]);
  return endpoint.rows.length !== 0;
}

/**
 * @internal An endpoint's state, its row locked until the transaction ends (so that it is not
 * disabled or removed meanwhile); `undefined` when no endpoint has this id.
 */
export async function lockEndpointState(
  transaction: Queryable,
  id: string,
): Promise<string | undefined> {
  const { rows } = await transaction.query<{ state: string }>(
    'SELECT state FROM webhook_endpoints WHERE id = $1 FOR UPDATE',
    [id],
  );
  return rows[0]?.state;
}

/**
 * @internal How many endpoints are in each state as the metrics name them: `active` (its last
 * attempt succeeded, or none was made), `failing` (active, every attempt failing since
 * `failing_since`) and `disabled` (by a person or by the server). Endpoints are the operator's
 * few subscriptions, so one grouped count is cheap.
 */
export async function countEndpointsByState(
  queryable: Queryable,
): Promise<Record<'active' | 'failing' | 'disabled', number>> {
  const { rows } = await queryable.query<{ active: number; failing: number; disabled: number }>(
    `SELECT count(*) FILTER (WHERE state = 'active' AND failing_since IS NULL)::int AS active,
            count(*) FILTER (WHERE state = 'active' AND failing_since IS NOT NULL)::int AS failing,
            count(*) FILTER (WHERE state = 'disabled')::int AS disabled
       FROM webhook_endpoints`,
  );
  const row = rows[0];
  return { active: row?.active ?? 0, failing: row?.failing ?? 0, disabled: row?.disabled ?? 0 };
}
