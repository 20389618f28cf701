import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../../clock.js';
import type { IdGenerator } from '../../ids.js';
import type { Database } from '../../storage/database.js';
import type { AccountStore } from '../../tokens/account-store.js';
import { auditLogPage } from './audit-log-page.js';
import { deliveriesPages } from './deliveries-pages.js';
import { ehrReceiptsPages } from './ehr-receipts-pages.js';
import { serviceAccountsPages } from './service-accounts-pages.js';
import { usersPages } from './users-pages.js';
import { webhookEndpointsPages } from './webhook-endpoints-pages.js';

/** @internal What a page plugin gets: the same stores as `/api`, never SQL of its own. */
export interface WebPageDependencies {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  accounts: AccountStore;
  /** `--public-url`, when given; see `publicUrlOf` in page-context.ts. */
  publicUrl: string | undefined;
}

/** @internal A page (or a family of pages): a Fastify plugin made from the dependencies. */
export type WebPage = (dependencies: WebPageDependencies) => FastifyPluginAsync;

/**
 * @internal Every page of the web application beyond sign-in and the start page. Add a page
 * here (see src/web/README.md); it is registered inside the web application's context.
 */
export const webPages: readonly WebPage[] = [
  serviceAccountsPages,
  usersPages,
  webhookEndpointsPages,
  deliveriesPages,
  ehrReceiptsPages,
  auditLogPage,
];
