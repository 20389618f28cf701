import { countSchema } from '@followup/sdk';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { problemResponses } from '../plugins/openapi.js';
import { countKeysetRows, type KeysetListSource } from '../stores/resource-list-store.js';
import { recordNotFound } from '../stores/resource-store.js';
import {
  type KeysetListQuery,
  keysetCountQuery,
  keysetFilterRequest,
  keysetListQuery,
  listPage,
} from './keyset-list.js';
import { offsetListQuery } from './list-query.js';
import { idParams, type ResourceRouteContext, resourceTag } from './resource-definition.js';

const security = [{ bearerAuth: [] }];

/**
 * @internal The reads of one resource family, behind its read capability: `GET <path>` (a keyset
 * list where the definition has `list`, else limit/offset, first key the collection, order
 * `createdAt, id`), `GET <path>/count` (v1.1, when the definition says
 * so; for a keyset list, the rows its filters match over all its pages) and `GET <path>/:id`.
 */
export function resourceReadRoutes(app: FastifyInstance, context: ResourceRouteContext): void {
  const { definition, store, database, requireCapability } = context;
  const { name, path, collection, schemas } = definition;
  const tag = resourceTag(definition);
  const keyset = definition.list;
  const keysetSource: KeysetListSource | undefined = keyset && {
    table: collection,
    columns: store.columns,
    filters: keyset,
    toItem: store.toItem,
  };
  if (keyset && keysetSource) {
    app.get(
      path,
      {
        onRequest: requireCapability(definition.capabilities.read),
        schema: {
          summary: `List ${collection}, oldest first unless sorted`,
          description:
            'Every page carries nextCursor (null on the last page): pass it back as cursor, ' +
            'with the same limit, sort and filters, to read the next page at the cost of the ' +
            'first. sort=updatedAt walks changes in change order: a walk meets each change once, ' +
            'even while writes continue. cursor with offset is a 400; ' +
            'so is any parameter not listed here.',
          tags: [tag],
          security,
          querystring: keysetListQuery(keyset),
          response: {
            // The SDK's schema, nextCursor included (optional there, for older servers).
            200: schemas.list,
            ...problemResponses(),
          },
        },
      },
      async (request) => {
        const query = request.query as KeysetListQuery;
        const { items, nextCursor } = await listPage(database, keysetSource, query);
        return { [collection]: items, nextCursor };
      },
    );
  } else {
    app.get(
      path,
      {
        onRequest: requireCapability(definition.capabilities.read),
        schema: {
          summary: `List ${collection}, oldest first`,
          tags: [tag],
          security,
          querystring: offsetListQuery,
          response: { 200: schemas.list, ...problemResponses() },
        },
      },
      async (request) => {
        const { limit, offset } = request.query as z.output<typeof offsetListQuery>;
        return { [collection]: await store.listRecords(database, { limit, offset }) };
      },
    );
  }

  if (definition.count) {
    app.get(
      `${path}/count`,
      {
        onRequest: requireCapability(definition.capabilities.read),
        schema: {
          summary: `Count ${collection} (v1.1)`,
          ...(keyset
            ? {
                description:
                  'How many records the list with these filters holds, over all its pages. ' +
                  'Any parameter not listed here is a 400.',
                querystring: keysetCountQuery(keyset),
              }
            : {}),
          tags: [tag],
          security,
          response: {
            200: countSchema,
            ...problemResponses(),
          },
        },
      },
      async (request) => {
        if (!keysetSource) return { count: await store.countRecords(database) };
        const query = request.query as Partial<KeysetListQuery>;
        const filters = keysetFilterRequest(keysetSource.filters, query);
        const count = await countKeysetRows(database, { source: keysetSource, request: filters });
        return { count };
      },
    );
  }

  app.get(
    `${path}/:id`,
    {
      onRequest: requireCapability(definition.capabilities.read),
      schema: {
        summary: `Get one ${name}`,
        tags: [tag],
        security,
        params: idParams,
        response: { 200: schemas.item, ...problemResponses('not_found') },
      },
    },
    async (request) => {
      const { id } = request.params as z.output<typeof idParams>;
      const item = await store.readRecord(database, id);
      if (!item) throw recordNotFound(definition, id);
      return item;
    },
  );
}
