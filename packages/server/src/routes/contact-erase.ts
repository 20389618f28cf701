import { boundedText, contactErasureSchema, INPUT_LIMITS } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { eraseContact } from '../erasure/contact-erasure.js';
import type { IdGenerator } from '../ids.js';
import type { RequireCapability } from '../plugins/authentication.js';
import { problemResponses } from '../plugins/openapi.js';
import type { Database } from '../storage/database.js';

const idParams = z.object({ id: boundedText({ min: 1, max: INPUT_LIMITS.id }) });

/**
 * @internal `POST /api/contacts/{id}/erase` (contacts.delete): erases a person through
 * {@link eraseContact}, and answers 200 with what was erased and the EHR receipts kept. A
 * contact deleted earlier is erased while a stored event still carries its id; otherwise 404.
 * Honours `Idempotency-Key` (the answer holds counts and ids, never a value).
 */
export function contactEraseRoute(
  app: FastifyInstance,
  options: {
    database: Database;
    clock: Clock;
    newId: IdGenerator;
    requireCapability: RequireCapability;
    onOutboxEvent?: (() => void) | undefined;
  },
): void {
  app.post(
    '/api/contacts/:id/erase',
    {
      onRequest: options.requireCapability('contacts.delete'),
      config: { idempotent: true },
      schema: {
        operationId: 'eraseContact',
        summary: 'Erase a person: delete the contact and replace every stored copy of its values',
        description:
          'Deletes the contact and its deals as DELETE does (when it still exists), then ' +
          'replaces every stored copy of its values by "[erased]", keeping ids, kinds and ' +
          "times, in one transaction: its events' data and previousAttributes (its deals' " +
          'titles too), webhook bodies pending and sent (a pending delivery is sent with the ' +
          "erased body) and their attempts' stored answers, audit details, inbox messages from " +
          'its e-mail addresses, and stored Idempotency-Key answers. EHR receipts are kept as ' +
          'received; those that mention the contact are listed in kept.ehrReceipts. Audited and ' +
          'announced as contact.erased (the id only). A contact deleted earlier can be erased ' +
          'while a stored event still carries its id; otherwise 404.',
        tags: ['Contacts'],
        security: [{ bearerAuth: [] }],
        params: idParams,
        response: {
          200: contactErasureSchema,
          ...problemResponses('not_found'),
        },
      },
    },
    async (request) => {
      const { id } = request.params as z.output<typeof idParams>;
      const principal = request.principal;
      if (!principal) throw new Error('The erase route ran without an authenticated principal.');
      return eraseContact(
        {
          database: options.database,
          clock: options.clock,
          newId: options.newId,
          actor: principal.actor,
          onOutboxEvent: options.onOutboxEvent,
        },
        id,
      );
    },
  );
}
