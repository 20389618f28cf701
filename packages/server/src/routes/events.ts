import {
  eventFeedEventSchema,
  eventFeedPageSchema,
  eventTypeListSchema,
  INPUT_LIMITS,
  WEBHOOK_EVENT_KINDS,
  type WebhookEventKind,
} from '@followup/sdk';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { FollowUpServerError } from '../errors.js';
import { findFeedEvent, listEvents, visibleEventKinds } from '../events/event-feed.js';
import { eventTypeCatalogue } from '../events/event-types.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import { enumFilterParameter } from './enum-filter.js';
import { limitParameter } from './list-query.js';

const querySchema = z.strictObject({
  limit: limitParameter,
  cursor: z.string().max(256).optional(),
  after: z.string().min(1).max(255).optional(),
  // A closed enumeration: the server emits these kinds only (docs/api-contract.md).
  kind: enumFilterParameter({
    name: 'kind',
    values: WEBHOOK_EVENT_KINDS,
    open: false,
    maxValues: WEBHOOK_EVENT_KINDS.length * 2,
  }).describe(
    `An event kind, one of ${WEBHOOK_EVENT_KINDS.join(', ')} (case-sensitive; any other is ` +
      'refused); repeat it for several. Without it, every kind the caller may see.',
  ),
});

// An event id as the server makes them: `evt_` and a ULID (letters, digits, and the `_` of ids
// written by hand in tests and older data), within the length of every id.
const eventIdParams = z.object({
  eventId: z
    .string()
    .max(INPUT_LIMITS.id, `eventId must be at most ${INPUT_LIMITS.id} characters`)
    .regex(/^evt_[A-Za-z0-9_]+$/, 'eventId must be an event id: evt_ then letters and digits')
    .describe('The event id (evt_…), as the feed and a thin webhook body (eventId) give it'),
});

/**
 * @internal `GET /api/events` (any role; each event only for roles that may read its record):
 * the feed of every event the server emits, in cursor pages; `GET /api/events/{eventId}`, one
 * of them under the same rules (a thin webhook body names it); `GET /api/event-types` (no token,
 * like `/openapi.json`): the catalogue of kinds with their JSON Schemas.
 */
export function eventRoutes(options: {
  database: Database;
  requireCapability: RequireCapability;
}): FastifyPluginAsync {
  const catalogue = eventTypeCatalogue();
  return async (app) => {
    const typed = app.withTypeProvider<ZodTypeProvider>();
    typed.get(
      '/api/events',
      {
        // Every role holds contacts.read; which events it sees is decided per kind below.
        onRequest: options.requireCapability('contacts.read'),
        schema: {
          summary: 'List events, oldest first, in cursor pages',
          description:
            'The events outbound webhooks carry, each with its own id (evt_…). Pass nextCursor back as cursor until it is null; to resume later, pass the id of the last event processed as after. Each event is listed only to roles that may read its record.',
          tags: ['Events'],
          security: [{ bearerAuth: [] }],
          querystring: querySchema,
          response: {
            200: eventFeedPageSchema,
            // A role may not read some kinds (forbidden, beside the capability).
            ...problemResponses('forbidden'),
          },
        },
      },
      async (request) => {
        const { limit, cursor, after, kind } = request.query;
        const principal = request.principal;
        if (!principal) throw new Error('GET /api/events ran without a principal.');
        const visible = visibleEventKinds(principal.role);
        // A closed enumeration: the schema let only these kinds through.
        const asked = kind as WebhookEventKind[] | undefined;
        const hidden = asked?.find((entry) => !visible.includes(entry));
        if (hidden !== undefined) {
          throw new ProblemError({
            code: 'forbidden',
            detail: `The role ${principal.role} may not read ${hidden} events.`,
          });
        }
        if (cursor !== undefined && after !== undefined) {
          throw new ProblemError({
            code: 'validation_failed',
            detail: 'The request is not valid: see errors.',
            errors: [{ path: 'after', message: 'give cursor or after, not both' }],
          });
        }
        try {
          return await listEvents(options.database, {
            kinds: asked ?? visible,
            limit,
            ...(cursor === undefined ? {} : { cursor }),
            ...(after === undefined ? {} : { after }),
          });
        } catch (error) {
          if (FollowUpServerError.isInstance(error)) {
            const path = error.code === 'invalid_after' ? 'after' : 'cursor';
            throw new ProblemError({
              code: 'validation_failed',
              detail: 'The request is not valid: see errors.',
              errors: [{ path, message: error.message }],
            });
          }
          throw error;
        }
      },
    );

    typed.get(
      '/api/events/:eventId',
      {
        // The feed's capability; the event's kind must be one the role may see, as in the feed.
        onRequest: options.requireCapability('contacts.read'),
        schema: {
          operationId: 'getEvent',
          summary: 'Get one event, as the feed shows it',
          description:
            'The event with this id exactly as GET /api/events lists it (values erased from it show "[erased]"): what a thin webhook body (payload thin) names as eventId. An event of a kind the role may not read, and one pruned past retention, are not found.',
          tags: ['Events'],
          security: [{ bearerAuth: [] }],
          params: eventIdParams,
          response: {
            200: eventFeedEventSchema,
            ...problemResponses('not_found'),
          },
        },
      },
      async (request) => {
        const principal = request.principal;
        if (!principal) throw new Error('GET /api/events/{eventId} ran without a principal.');
        const { eventId } = request.params;
        const event = await findFeedEvent(options.database, {
          id: eventId,
          kinds: visibleEventKinds(principal.role),
        });
        if (event === undefined) {
          throw new ProblemError({
            code: 'not_found',
            detail: `No event has the id ${JSON.stringify(eventId)}.`,
          });
        }
        return event;
      },
    );

    typed.get(
      '/api/event-types',
      {
        schema: {
          summary: 'List the event kinds with the JSON Schema of each body',
          tags: ['Events'],
          response: {
            200: eventTypeListSchema,
          },
        },
      },
      async () => ({ eventTypes: catalogue }),
    );
  };
}
