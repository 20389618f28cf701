import {
  boundedText,
  createdWebhookEndpointSchema,
  createWebhookEndpointInputSchema,
  INPUT_LIMITS,
  queuedTestDeliverySchema,
  rotatedWebhookSecretSchema,
  rotateWebhookSecretInputSchema,
  subscriberKeySchema,
  updateWebhookEndpointInputSchema,
  WEBHOOK_ENDPOINT_LIMITS,
  webhookEndpointListSchema,
  webhookEndpointSchema,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { sendTestEvent } from '../delivery/test-event.js';
import { toInfo } from '../delivery/webhook-endpoint-info.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import { readEndpointPage } from '../stores/webhook-endpoint-list-store.js';
import { cursorParameter, limitParameter } from './list-query.js';
import {
  actorOf,
  cursorPosition,
  endpointBody,
  pageOf,
  queryFingerprint,
  withProblems,
} from './webhook-route-support.js';

const idParams = z.object({ id: boundedText({ min: 1, max: INPUT_LIMITS.id }) });

const endpointStates = ['active', 'failing', 'disabled'] as const;

const listQuery = z.strictObject({
  limit: limitParameter,
  cursor: cursorParameter,
  subscriber: subscriberKeySchema.optional().describe('Only the endpoints of this subscriber'),
  state: z
    .enum(endpointStates, { error: `state must be one of ${endpointStates.join(', ')}` })
    .optional()
    .describe('Only endpoints in this state: active, failing (active, attempts failing), disabled'),
});

const tags = ['Webhook endpoints'];
const security = [{ bearerAuth: [] }];

/**
 * @internal The webhook API's endpoints (`webhooks.manage`, ADMIN): `POST`, `GET` (keyset pages,
 * by subscriber and state), `GET`, `PATCH` (fields and state) and `DELETE` of one,
 * `rotate-secret` and `test`. The same functions as the console's Webhook endpoints page and
 * `followup-server endpoints …` (`delivery/webhook-endpoints.ts`, `delivery/test-event.ts`),
 * audited with the caller as actor. A secret is answered only by the create and the rotation.
 */
export function webhookEndpointRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
  onOutboxEvent: () => void;
  /** `--allow-private-endpoints`: a URL may name a private address (else 422). */
  allowPrivateEndpoints: boolean;
}): FastifyPluginAsync {
  const { database, clock, newId } = options;
  const endpoints = createEndpointStore({
    database,
    clock,
    newId,
    onOutboxEvent: options.onOutboxEvent,
    addressPolicy: { allowPrivate: options.allowPrivateEndpoints },
  });
  const onRequest = options.requireCapability('webhooks.manage');
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();

    typed.post(
      '/api/webhook-endpoints',
      {
        onRequest,
        schema: {
          operationId: 'createWebhookEndpoint',
          summary: 'Add a webhook endpoint; its signing secret is answered this once',
          tags,
          security,
          body: createWebhookEndpointInputSchema,
          response: {
            201: createdWebhookEndpointSchema,
            ...problemResponses('invalid_endpoint_url'),
          },
        },
      },
      async (request, reply) => {
        const { secret, ...info } = await withProblems(() =>
          endpoints.add(request.body, actorOf(request)),
        );
        return reply.status(201).send({ ...endpointBody(info), secret });
      },
    );

    typed.get(
      '/api/webhook-endpoints',
      {
        onRequest,
        schema: {
          operationId: 'listWebhookEndpoints',
          summary: 'List webhook endpoints, oldest first, in cursor pages; never their secrets',
          tags,
          security,
          querystring: listQuery,
          response: { 200: webhookEndpointListSchema, ...problemResponses() },
        },
      },
      async (request) => {
        const { limit, cursor, subscriber, state } = request.query;
        const fingerprint = queryFingerprint([
          'webhook-endpoints',
          limit,
          subscriber ?? null,
          state ?? null,
        ]);
        const after = cursorPosition(cursor, fingerprint);
        const rows = await readEndpointPage(database, { subscriber, state, after, limit });
        const page = pageOf(rows, limit, fingerprint);
        const now = clock.now();
        return {
          webhookEndpoints: page.rows.map((row) => endpointBody(toInfo(row, now))),
          nextCursor: page.nextCursor,
        };
      },
    );

    typed.get(
      '/api/webhook-endpoints/:id',
      {
        onRequest,
        schema: {
          operationId: 'getWebhookEndpoint',
          summary: 'Get a webhook endpoint, never its secret',
          tags,
          security,
          params: idParams,
          response: { 200: webhookEndpointSchema, ...problemResponses('not_found') },
        },
      },
      async (request) => {
        const { id } = request.params;
        const info = await endpoints.get(id);
        if (!info) {
          throw new ProblemError({
            code: 'not_found',
            detail: `No webhook endpoint has the id ${JSON.stringify(id)}.`,
          });
        }
        return endpointBody(info);
      },
    );

    typed.patch(
      '/api/webhook-endpoints/:id',
      {
        onRequest,
        schema: {
          operationId: 'updateWebhookEndpoint',
          summary: 'Change a webhook endpoint; state disabled or active disables or enables it',
          tags,
          security,
          params: idParams,
          body: updateWebhookEndpointInputSchema,
          response: {
            200: webhookEndpointSchema,
            ...problemResponses('not_found', 'invalid_endpoint_url'),
          },
        },
      },
      async (request) => {
        const info = await withProblems(() =>
          endpoints.update(request.params.id, request.body, actorOf(request)),
        );
        return endpointBody(info);
      },
    );

    typed.delete(
      '/api/webhook-endpoints/:id',
      {
        onRequest,
        schema: {
          operationId: 'deleteWebhookEndpoint',
          summary: 'Remove a webhook endpoint; its pending deliveries are cancelled',
          tags,
          security,
          params: idParams,
          response: { 204: z.null().describe('Removed'), ...problemResponses('not_found') },
        },
      },
      async (request, reply) => {
        await withProblems(() => endpoints.remove(request.params.id, actorOf(request)));
        return reply.status(204).send(null);
      },
    );

    typed.post(
      '/api/webhook-endpoints/:id/rotate-secret',
      {
        onRequest,
        schema: {
          operationId: 'rotateWebhookEndpointSecret',
          summary:
            'Give a webhook endpoint a new signing secret, answered this once; both sign during the overlap',
          tags,
          security,
          params: idParams,
          // No body at all is no option: Fastify hands the validator `null`.
          body: rotateWebhookSecretInputSchema.nullish(),
          response: { 200: rotatedWebhookSecretSchema, ...problemResponses('not_found') },
        },
      },
      async (request) => {
        const overlap =
          request.body?.overlapSeconds ?? WEBHOOK_ENDPOINT_LIMITS.defaultOverlapSeconds;
        const { secret } = await withProblems(() =>
          endpoints.rotateSecret(request.params.id, overlap, actorOf(request)),
        );
        return { secret };
      },
    );

    typed.post(
      '/api/webhook-endpoints/:id/test',
      {
        onRequest,
        schema: {
          operationId: 'testWebhookEndpoint',
          summary: 'Send a webhook.test event to one endpoint; follow its delivery',
          tags,
          security,
          params: idParams,
          response: {
            202: queuedTestDeliverySchema,
            ...problemResponses('not_found', 'conflict'),
          },
        },
      },
      async (request, reply) => {
        const queued = await withProblems(() =>
          sendTestEvent(database, {
            endpointId: request.params.id,
            clock,
            newId,
            actor: actorOf(request),
          }),
        );
        options.onOutboxEvent();
        return reply.status(202).send({ deliveryId: queued.deliveryId });
      },
    );
  };
}
