import type { FastifyPluginAsync } from 'fastify';
import type { Clock } from '../../clock.js';
import type { IdGenerator } from '../../ids.js';
import type { Database } from '../../storage/database.js';
import type { AccountStore } from '../../tokens/account-store.js';

// What every page file exports, apart from index.ts, which lists the pages: the page files
// import this type, and index.ts imports them, so the type in index.ts would be a cycle.

/** @internal What a page plugin gets: the same stores as `/api`, never SQL of its own. */
export interface WebPageDependencies {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  accounts: AccountStore;
  /** `--public-url`, when given; see `publicUrlOf` in page-context.ts. */
  publicUrl: string | undefined;
  /** `--allow-private-endpoints`: endpoint URLs may name private addresses. */
  allowPrivateEndpoints: boolean;
  /**
   * Wakes the delivery worker after a change that makes a delivery due (a retry), as the API's
   * routes do: the server's `onOutboxEvent`.
   */
  onOutboxEvent: () => void;
}

/** @internal A page (or a family of pages): a Fastify plugin made from the dependencies. */
export type WebPage = (dependencies: WebPageDependencies) => FastifyPluginAsync;
