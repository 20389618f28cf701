import {
  type ContactBatchResult,
  contactBatchInputSchema,
  contactBatchResponseSchema,
  upsertContactInputSchema,
} from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import { validationErrorMap, validationErrors } from '../plugins/validation-messages.js';
import type { Database } from '../storage/database.js';
import { findContactByEmail, takeContactBatchTurn } from '../stores/contact-store.js';
import type { ResourceStore } from '../stores/resource-store.js';

/** The fields a batch item may set, as the contact answers them. */
const upsertFields = ['firstName', 'lastName', 'lifecycle', 'email', 'phone'] as const;

/**
 * @internal `POST /api/contacts/batch` (contacts.write): up to 200 contacts, upserted by e-mail
 * in one transaction. Each item is checked on its own: an invalid one gets an `invalid` result
 * with its errors and nothing is written for it; a valid one updates the oldest contact with
 * that e-mail address (case-insensitive; only the fields whose values differ, so a repeated
 * batch changes nothing) or creates one. One result per item, in request order. Creates and
 * updates go through the same store functions as `POST` and `PATCH` (events included); the route
 * honours `Idempotency-Key`.
 */
export function contactBatchRoute(
  app: FastifyInstance,
  store: ResourceStore,
  options: {
    database: Database;
    requireCapability: RequireCapability;
    onOutboxEvent?: (() => void) | undefined;
  },
): void {
  app.post(
    '/api/contacts/batch',
    {
      onRequest: options.requireCapability('contacts.write'),
      config: { idempotent: true },
      schema: {
        summary: 'Create or update up to 200 contacts by e-mail',
        description:
          'One result per item, in order: created, updated (the oldest contact with the e-mail, ' +
          'case-insensitive) or invalid (with errors; nothing written for it). Send an ' +
          'Idempotency-Key header to make a retry safe.',
        tags: ['Contacts'],
        security: [{ bearerAuth: [] }],
        body: contactBatchInputSchema,
        response: {
          200: contactBatchResponseSchema,
          ...problemResponses(),
        },
      },
    },
    async (request) => {
      const { contacts } = request.body as { contacts: unknown[] };
      const principal = request.principal;
      if (!principal) throw new Error('The batch route ran without an authenticated principal.');
      const actor = principal.actor;
      let announced = false;
      const results = await options.database.transaction(async (transaction) => {
        // Batches take turns (a transaction-scoped lock), so that two batches naming one new
        // e-mail at once create it once: the second finds the first's contact.
        await takeContactBatchTurn(transaction);
        const out: ContactBatchResult[] = [];
        for (const [index, raw] of contacts.entries()) {
          const parsed = upsertContactInputSchema.safeParse(raw, { error: validationErrorMap });
          if (!parsed.success) {
            out.push({
              index,
              result: 'invalid',
              errors: validationErrors(parsed.error.issues, 'the contact').map((error, at) => {
                const issue = parsed.error.issues[at];
                // An unknown field is named itself, as a body's are (plugins/problem.ts).
                return issue?.code === 'unrecognized_keys' && error.path === ''
                  ? {
                      path: issue.keys.join(','),
                      message: `${issue.keys.join(', ')} is not a field of a contact`,
                    }
                  : error;
              }),
            });
            continue;
          }
          const input = parsed.data as Record<string, unknown> & { email: string };
          const current = await findContactByEmail(transaction, input.email);
          if (current === undefined) {
            const { item } = await store.createRecord(options.database, {
              actor,
              body: input,
              transaction,
            });
            announced = true;
            out.push({ index, result: 'created', contact: item as never });
            continue;
          }
          const changes: Record<string, unknown> = {};
          for (const field of upsertFields) {
            if (input[field] !== undefined && input[field] !== current[field]) {
              changes[field] = input[field];
            }
          }
          const updated = await store.updateRecord(transaction, {
            actor,
            id: String(current.id),
            body: changes,
          });
          announced ||= updated.announced;
          out.push({ index, result: 'updated', contact: updated.item as never });
        }
        return out;
      });
      if (announced) options.onOutboxEvent?.();
      return { results };
    },
  );
}
