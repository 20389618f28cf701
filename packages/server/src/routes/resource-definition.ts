import { boundedText, INPUT_LIMITS } from '@followup/sdk';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Capability } from '../capabilities.js';
import type { RequireCapability } from '../plugins/authentication.js';
import type { Database } from '../storage/database.js';
import type { AuditActor } from '../stores/audit-store.js';
import type { KeysetListFilters } from '../stores/resource-list-store.js';
import type { ResourceStore } from '../stores/resource-store.js';
import type { ResourceTable } from '../stores/resource-table.js';

/**
 * @internal Everything that makes one resource family: how it is stored (the
 * {@link ResourceTable} of its store), and its path, schemas and capabilities.
 */
export interface ResourceDefinition extends ResourceTable {
  /** `/api/contacts` */
  path: string;
  /** The capability of each kind of call. */
  capabilities: { read: Capability; write: Capability; delete: Capability };
  /** The SDK's schemas: one record, a list page, the create and the update bodies. */
  schemas: { item: z.ZodType; list: z.ZodType; create: z.ZodType; update: z.ZodType };
  /** Whether `GET <path>/count` exists (v1.1). */
  count: boolean;
  /**
   * Foreign keys of the create body, by constraint name: a value that names no record is a 400
   * `validation_failed` on that field.
   */
  references?: Readonly<Record<string, { field: string; message: string }>>;
  /** Unique columns, by constraint name: a duplicate is a 409 `conflict`. */
  unique?: Readonly<Record<string, { field: string; message: string }>>;
  /**
   * Keyset lists (contacts, deals): `GET <path>` answers `nextCursor` and takes `cursor`, `sort`,
   * `updatedSince` and these filters, and refuses unknown parameters. Without it, the list is
   * limit/offset only.
   */
  list?: KeysetListFilters;
  /** Registers routes beyond the usual ones, with the family's store. */
  moreRoutes?: (app: FastifyInstance, store: ResourceStore) => void;
  /** Runs after a create committed. */
  afterCreateCommitted?: () => void;
}

/** @internal What each route file of a resource family is given. */
export interface ResourceRouteContext {
  definition: ResourceDefinition;
  /** The family's store, made once for all its routes. */
  store: ResourceStore;
  database: Database;
  requireCapability: RequireCapability;
}

/** @internal The `:id` of a resource's URL. */
export const idParams = z.object({ id: boundedText({ min: 1, max: INPUT_LIMITS.id }) });

/** @internal Who calls a resource route, as the audit log records it. */
export function actorOf(request: FastifyRequest): AuditActor {
  const principal = request.principal;
  if (!principal) throw new Error('A resource route ran without an authenticated principal.');
  return principal.actor;
}

/** @internal The OpenAPI tag of a family's routes: `Contacts`. */
export function resourceTag(definition: Pick<ResourceDefinition, 'collection'>): string {
  return definition.collection.charAt(0).toUpperCase() + definition.collection.slice(1);
}
