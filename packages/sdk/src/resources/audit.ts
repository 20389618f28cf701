import type { CursorPage } from '../cursor-page.js';
import type { HttpClient } from '../internal/http-client.js';
import { cursorLoader } from '../internal/list-loaders.js';
import { checkCursor, checkLimit } from '../internal/list-params.js';
import { PagePromise } from '../page-promise.js';
import type { RequestOptions } from '../request-options.js';
import { type AuditEntry, auditEntryListSchema } from '../schemas/audit-entry.js';

/**
 * Parameters of a cursor `list()`.
 *
 * @example
 * ```ts
 * const params: CursorListParams = { limit: 200, cursor: error.resumeFrom?.cursor };
 * ```
 */
export interface CursorListParams {
  /** Items per page, 1 to 200 (default 50). A larger value is refused before any request. */
  limit?: number;
  /** Where to start: the `nextCursor` of an earlier page, or an error's `resumeFrom.cursor`. */
  cursor?: string;
}

/**
 * `client.audit`: the audit log, in cursor pages.
 *
 * @example
 * ```ts
 * for await (const entry of client.audit.list({ limit: 200 })) {
 *   console.log(entry.occurredAt, entry.action, entry.actor.type);
 * }
 * ```
 */
export class Audit {
  readonly #http: HttpClient;

  /** @internal */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * One page (await it) or every entry (iterate it). Each entry comes exactly once, even while
   * new entries are written; an empty page with a cursor does not end the walk.
   *
   * @example
   * ```ts
   * const page = await client.audit.list();
   * if (page.hasNextPage()) console.log('more after', page.nextCursor);
   * ```
   */
  list(
    params?: CursorListParams,
    options?: RequestOptions,
  ): PagePromise<CursorPage<AuditEntry>, AuditEntry> {
    const limit = checkLimit(params?.limit);
    const cursor = checkCursor(params?.cursor);
    const load = cursorLoader<AuditEntry, unknown>({
      http: this.#http,
      path: '/api/audit',
      key: 'entries',
      schema: auditEntryListSchema,
      options,
    });
    return new PagePromise(load(cursor === undefined ? { limit } : { cursor, limit }, 0));
  }
}
