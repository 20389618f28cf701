import type { z } from 'zod';
import { CursorPage, type CursorPageParams } from '../cursor-page.js';
import { FollowUpError, type ResumeFrom } from '../follow-up-error.js';
import { KeysetPage, type KeysetPageParams } from '../keyset-page.js';
import { OffsetPage, type OffsetPageParams } from '../offset-page.js';
import { ResponseValidationError } from '../request-errors.js';
import type { RequestOptions } from '../request-options.js';
import type { QueryValue } from './build-request.js';
import type { HttpClient } from './http-client.js';

const CONFIGURATION_CODE = 'configuration_invalid';

function itemsOf<Item>(body: unknown, key: string): readonly Item[] {
  const items = (body as Record<string, unknown> | null | undefined)?.[key];
  // With validation off a broken body may lack the array; treat it as an empty page.
  return Array.isArray(items) ? (items as Item[]) : [];
}

function describeResume(resume: ResumeFrom): string {
  if ('offset' in resume) {
    return `call list() again with the same parameters and { offset: ${resume.offset} }`;
  }
  return `call list() again with { cursor: ${JSON.stringify(resume.cursor)} } in place of any offset or after, and the same other parameters`;
}

/**
 * Marks an error that ended a walk (a page after the first) with where the walk can resume: the
 * page it was fetching, by the cursor when the walk goes by cursor. The first page of a list is
 * no walk yet (a single `await client.contacts.list()`, or the start of a loop): calling list()
 * again is all there is to do, so its error speaks of no resuming.
 */
function withResume(error: unknown, resume: ResumeFrom): unknown {
  // A ConfigurationError (a bad option) would fail the same way again: no resume point.
  if (
    FollowUpError.isInstance(error) &&
    error.code !== CONFIGURATION_CODE &&
    error.resumeFrom === undefined
  ) {
    error.resumeFrom = resume;
    error.message += ` To resume the walk, ${describeResume(resume)}.`;
  }
  return error;
}

/** The error that stops a walk whose page handed back a cursor the walk already followed. */
function repeatedCursorError(
  http: HttpClient,
  path: string,
  query: Readonly<Record<string, QueryValue>>,
  response: Response,
): ResponseValidationError {
  const url = http.url(path, query);
  return new ResponseValidationError({
    message: `GET ${url} returned a nextCursor that this walk already followed; stopping instead of looping.`,
    issues: [{ path: ['nextCursor'], message: 'repeats an earlier cursor of the same walk' }],
    status: response.status,
    requestId: response.headers.get('x-request-id') ?? undefined,
    method: 'GET',
    url,
  });
}

/** What an offset list needs to load its pages. */
export interface OffsetListSpec<Body> {
  readonly http: HttpClient;
  readonly path: string;
  readonly key: string;
  readonly schema: z.ZodType<Body>;
  readonly options: RequestOptions | undefined;
}

/**
 * Returns the function that loads the first page of an offset list; the pages it returns load
 * the next ones, whose errors say where to resume.
 */
export function offsetLoader<Item, Body>(
  spec: OffsetListSpec<Body>,
): (params: OffsetPageParams) => Promise<OffsetPage<Item>> {
  const load = async (params: OffsetPageParams, walking: boolean): Promise<OffsetPage<Item>> => {
    try {
      const { data, response } = await spec.http.request({
        method: 'GET',
        path: spec.path,
        query: { limit: params.limit, offset: params.offset },
        schema: spec.schema,
        options: spec.options,
      });
      return new OffsetPage<Item>({
        items: itemsOf<Item>(data, spec.key),
        response,
        params,
        load: loadNext,
      });
    } catch (error) {
      throw walking ? withResume(error, { offset: params.offset }) : error;
    }
  };
  const loadNext = (params: OffsetPageParams) => load(params, true);
  return (params) => load(params, false);
}

/** What a cursor list needs to load its pages: the offset list's, and its filters if any. */
export interface CursorListSpec<Body> extends OffsetListSpec<Body> {
  /** Filters sent with every page (a cursor is only valid with the same ones). */
  readonly filters?: Readonly<Record<string, QueryValue>>;
  /** Parameters of the first page only, when it has no cursor (where to start, e.g. `after`). */
  readonly start?: Readonly<Record<string, QueryValue>>;
}

/**
 * Returns the function that loads one page of a cursor list, refusing a repeated cursor. The
 * first page is depth 0; the error of a later page says where to resume.
 */
export function cursorLoader<Item, Body>(
  spec: CursorListSpec<Body>,
): (params: CursorPageParams, depth: number) => Promise<CursorPage<Item>> {
  // The depth at which each cursor was first asked for. A page at depth d whose nextCursor was
  // already asked for at depth <= d (by itself or an earlier page of its walk) would loop.
  const askedAt = new Map<string, number>();
  const load = async (params: CursorPageParams, depth: number): Promise<CursorPage<Item>> => {
    const resume: ResumeFrom = params.cursor === undefined ? {} : { cursor: params.cursor };
    try {
      if (params.cursor !== undefined && !askedAt.has(params.cursor)) {
        askedAt.set(params.cursor, depth);
      }
      const query =
        params.cursor === undefined
          ? { limit: params.limit, ...spec.filters, ...spec.start }
          : { limit: params.limit, ...spec.filters, cursor: params.cursor };
      const { data, response } = await spec.http.request({
        method: 'GET',
        path: spec.path,
        query,
        schema: spec.schema,
        options: spec.options,
      });
      const body = data as { nextCursor?: unknown } | null | undefined;
      const nextCursor =
        typeof body?.nextCursor === 'string' && body.nextCursor !== '' ? body.nextCursor : null;
      const seenAt = nextCursor === null ? undefined : askedAt.get(nextCursor);
      if (seenAt !== undefined && seenAt <= depth) {
        throw repeatedCursorError(spec.http, spec.path, query, response);
      }
      return new CursorPage<Item>({
        items: itemsOf<Item>(data, spec.key),
        response,
        params,
        nextCursor,
        depth,
        load,
      });
    } catch (error) {
      throw depth > 0 ? withResume(error, resume) : error;
    }
  };
  return load;
}

/** What a keyset list needs to load its pages: the offset list's, and its filters. */
export interface KeysetListSpec<Body> extends OffsetListSpec<Body> {
  /** Sort and filters, sent with every page (a cursor is only valid with the same ones). */
  readonly filters: Readonly<Record<string, QueryValue>>;
}

/**
 * Returns the function that loads the first page of a contacts or deals list: by cursor when
 * given, else by offset; a `nextCursor` already followed in the same walk is an error, not a
 * loop. The pages it returns load the next ones, whose errors say where to resume: by the
 * cursor the walk was following, or by offset against a service that sends none.
 */
export function keysetLoader<Item, Body>(
  spec: KeysetListSpec<Body>,
): (params: KeysetPageParams) => Promise<KeysetPage<Item>> {
  const followed = new Set<string>();
  const load = async (params: KeysetPageParams, walking: boolean): Promise<KeysetPage<Item>> => {
    const resume: ResumeFrom =
      params.cursor === undefined ? { offset: params.offset } : { cursor: params.cursor };
    const query =
      params.cursor === undefined
        ? {
            limit: params.limit,
            ...spec.filters,
            ...(params.offset > 0 ? { offset: params.offset } : {}),
          }
        : { limit: params.limit, ...spec.filters, cursor: params.cursor };
    try {
      if (params.cursor !== undefined) followed.add(params.cursor);
      const { data, response } = await spec.http.request({
        method: 'GET',
        path: spec.path,
        query,
        schema: spec.schema,
        options: spec.options,
      });
      const body = data as { nextCursor?: unknown } | null | undefined;
      const raw = body?.nextCursor;
      const nextCursor =
        typeof raw === 'string' && raw !== '' ? raw : raw === undefined ? undefined : null;
      if (typeof nextCursor === 'string' && followed.has(nextCursor)) {
        throw repeatedCursorError(spec.http, spec.path, query, response);
      }
      return new KeysetPage<Item>({
        items: itemsOf<Item>(data, spec.key),
        response,
        params,
        nextCursor,
        load: loadNext,
      });
    } catch (error) {
      throw walking ? withResume(error, resume) : error;
    }
  };
  const loadNext = (params: KeysetPageParams) => load(params, true);
  return (params) => load(params, false);
}
