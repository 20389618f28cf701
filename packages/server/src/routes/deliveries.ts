import {
  boundedText,
  DELIVERY_STATES,
  deliveryAttemptListSchema,
  deliveryDetailSchema,
  deliveryListSchema,
  deliverySchema,
  INPUT_LIMITS,
  retryDeliveryInputSchema,
  WEBHOOK_EVENT_KINDS,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { createDeliveryStore, type DeliveryInfo } from '../delivery/deliveries.js';
import { deliveryAsSent } from '../delivery/delivery-detail.js';
import { retryDelivery } from '../delivery/retry-delivery.js';
import { TEST_EVENT_KIND } from '../delivery/test-event.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import { findDeliveryContent, readDeliveryPage } from '../stores/delivery-list-store.js';
import type { DeliveryRow } from '../stores/delivery-store.js';
import { cursorParameter, limitParameter } from './list-query.js';
import {
  actorOf,
  cursorPosition,
  instantParameter,
  pageOf,
  queryFingerprint,
  withProblems,
} from './webhook-route-support.js';

const paramsSchema = z.object({ id: boundedText({ min: 1, max: INPUT_LIMITS.id }) });

// The kinds a delivery may carry: the events', and the test event of one endpoint.
const deliveryKinds = [...WEBHOOK_EVENT_KINDS, TEST_EVENT_KIND] as const;

const listQuery = z.strictObject({
  limit: limitParameter,
  cursor: cursorParameter,
  endpoint: boundedText({ min: 1, max: INPUT_LIMITS.id })
    .optional()
    .describe('Only the deliveries to this endpoint (we_…)'),
  state: z
    .enum(DELIVERY_STATES, { error: `state must be one of ${DELIVERY_STATES.join(', ')}` })
    .optional()
    .describe('Only deliveries in this state: pending, delivered or dead'),
  kind: z
    .enum(deliveryKinds, { error: `kind must be one of ${deliveryKinds.join(', ')}` })
    .optional()
    .describe('Only deliveries of this event kind'),
  createdAfter: instantParameter('createdAfter')
    .optional()
    .describe('Only deliveries queued at or after this ISO 8601 time'),
  createdBefore: instantParameter('createdBefore')
    .optional()
    .describe('Only deliveries queued before this ISO 8601 time'),
});

const tags = ['Deliveries'];
const security = [{ bearerAuth: [] }];

function deliveryBody(info: DeliveryInfo | DeliveryRow) {
  if ('endpointId' in info) return { ...info };
  return {
    id: info.id,
    eventId: info.event_id,
    event: info.event,
    endpointId: info.endpoint_id,
    state: info.state,
    attempts: info.attempts,
    nextAttemptAt: info.next_attempt_at,
    lastStatus: info.last_status,
    lastError: info.last_error,
    createdAt: info.created_at,
    deliveredAt: info.delivered_at,
  };
}

function notFound(id: string): ProblemError {
  return new ProblemError({
    code: 'not_found',
    detail: `No delivery has the id ${JSON.stringify(id)}.`,
  });
}

/**
 * @internal The webhook API's deliveries (`webhooks.manage`, ADMIN): `GET /api/deliveries`
 * (keyset pages by endpoint, state, kind and creation time), `GET /api/deliveries/{id}` (with
 * the body sent and its headers, signatures redacted), `POST /api/deliveries/{id}/retry` (409
 * `conflict` for a delivered one unless `force`) and `GET /api/deliveries/{id}/attempts`. The
 * same store functions as `followup-server deliveries …` and the console's Deliveries pages.
 */
export function deliveryRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
  onOutboxEvent: () => void;
}): FastifyPluginAsync {
  const { database, clock, newId } = options;
  const deliveries = createDeliveryStore({ database, clock, newId });
  const onRequest = options.requireCapability('webhooks.manage');
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();

    typed.get(
      '/api/deliveries',
      {
        onRequest,
        schema: {
          operationId: 'listDeliveries',
          summary: 'List webhook deliveries, oldest first, in cursor pages',
          tags,
          security,
          querystring: listQuery,
          response: { 200: deliveryListSchema, ...problemResponses() },
        },
      },
      async (request) => {
        const { limit, cursor, endpoint, state, kind, createdAfter, createdBefore } = request.query;
        const fingerprint = queryFingerprint([
          'deliveries',
          limit,
          endpoint ?? null,
          state ?? null,
          kind ?? null,
          createdAfter ?? null,
          createdBefore ?? null,
        ]);
        const after = cursorPosition(cursor, fingerprint);
        const rows = await readDeliveryPage(database, {
          endpointId: endpoint,
          state,
          kind,
          createdAfter,
          createdBefore,
          after,
          limit,
        });
        const page = pageOf(rows, limit, fingerprint);
        return { deliveries: page.rows.map(deliveryBody), nextCursor: page.nextCursor };
      },
    );

    typed.get(
      '/api/deliveries/:id',
      {
        onRequest,
        schema: {
          operationId: 'getDelivery',
          summary:
            'Get a webhook delivery with the body and headers it sends (signatures redacted)',
          tags,
          security,
          params: paramsSchema,
          response: { 200: deliveryDetailSchema, ...problemResponses('not_found') },
        },
      },
      async (request) => {
        const { id } = request.params;
        const [delivery, content] = await Promise.all([
          deliveries.get(id),
          findDeliveryContent(database, id),
        ]);
        if (!delivery || !content) throw notFound(id);
        return { ...delivery, ...deliveryAsSent(delivery, content, clock.now()) };
      },
    );

    typed.post(
      '/api/deliveries/:id/retry',
      {
        onRequest,
        schema: {
          operationId: 'retryDelivery',
          summary:
            'Send a webhook delivery again now, with the same id; a delivered one only with force',
          tags,
          security,
          params: paramsSchema,
          // No body at all is no option: Fastify hands the validator `null`.
          body: retryDeliveryInputSchema.nullish(),
          response: { 202: deliverySchema, ...problemResponses('not_found', 'conflict') },
        },
      },
      async (request, reply) => {
        const info = await withProblems(() =>
          retryDelivery(deliveries, request.params.id, {
            actor: actorOf(request),
            force: request.body?.force === true,
            onOutboxEvent: options.onOutboxEvent,
          }),
        );
        return reply.status(202).send(deliveryBody(info));
      },
    );

    typed.get(
      '/api/deliveries/:id/attempts',
      {
        onRequest,
        schema: {
          operationId: 'listDeliveryAttempts',
          summary: "List a webhook delivery's attempts, oldest first",
          tags,
          security,
          params: paramsSchema,
          response: { 200: deliveryAttemptListSchema, ...problemResponses('not_found') },
        },
      },
      async (request) => {
        const { id } = request.params;
        if ((await deliveries.get(id)) === undefined) throw notFound(id);
        return { attempts: await deliveries.attempts(id) };
      },
    );
  };
}
