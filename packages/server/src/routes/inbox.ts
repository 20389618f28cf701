import { INBOX_SECRET_HEADER, inboxMessageListSchema, inboxSendInputSchema } from '@followup/sdk';
import { secretsEqual } from '@followup/webhooks';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { answering } from '../plugins/route-problem-codes.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import { insertMessage, listMessages } from '../stores/message-store.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import { offsetListQuery } from './list-query.js';

/**
 * @internal `POST /api/inbox/webhook` (shared secret) and `GET /api/messages` (contacts.read).
 * With a secret configured, the `X-Service-Webhook-Secret` header must equal it (constant time)
 * or the answer is 401 `webhook_secret_invalid`, before the body is read. Without one the
 * endpoint is open, for local development only.
 */
export function inboxRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  requireCapability: RequireCapability;
  secret: string | undefined;
  /** Told after a message committed its `message.received` event. */
  onOutboxEvent?: () => void;
  /** Told after a message is stored (the metrics). */
  onInboxMessage?: (() => void) | undefined;
}): FastifyPluginAsync {
  const { database, clock, newId, secret } = options;
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();

    typed.post(
      '/api/inbox/webhook',
      {
        onRequest: [
          app.limitByAddress,
          answering(
            async (request: FastifyRequest) => {
              if (secret === undefined) return;
              if (!secretsEqual(request.headers[INBOX_SECRET_HEADER], secret)) {
                throw new ProblemError({
                  code: 'webhook_secret_invalid',
                  detail: 'The X-Service-Webhook-Secret header is missing or wrong.',
                });
              }
            },
            () => (secret === undefined ? [] : ['webhook_secret_invalid']),
          ),
        ],
        schema: {
          tags: ['Inbound webhooks'],
          summary: 'Store a forwarded e-mail as an inbox message',
          body: inboxSendInputSchema,
          response: { 201: z.object({ id: z.string() }), ...problemResponses() },
        },
      },
      async (request, reply) => {
        const id = newId('msg');
        const { from, subject, text } = request.body;
        const receivedAt = new Date(clock.now());
        await database.transaction(async (transaction) => {
          await insertMessage(transaction, { id, from, subject, text, receivedAt });
          const message = {
            id,
            from,
            subject,
            ...(text === undefined ? {} : { text }),
            receivedAt: receivedAt.toISOString(),
          };
          await recordOutboxEvent(
            transaction,
            { event: 'message.received', data: message },
            { clock, newId },
          );
        });
        options.onOutboxEvent?.();
        options.onInboxMessage?.();
        return reply.code(201).send({ id });
      },
    );

    typed.get(
      '/api/messages',
      {
        onRequest: options.requireCapability('contacts.read'),
        schema: {
          tags: ['Inbound webhooks'],
          summary: 'List inbox messages, oldest first',
          security: [{ bearerAuth: [] }],
          querystring: offsetListQuery,
          response: {
            200: inboxMessageListSchema,
            ...problemResponses(),
          },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        return { messages: await listMessages(database, { limit, offset }) };
      },
    );
  };
}
