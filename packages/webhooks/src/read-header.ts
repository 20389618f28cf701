import { verificationError } from './errors.js';

/**
 * Request headers in any of the shapes frameworks hand out: a fetch `Headers` (Web `Request`,
 * Hono, Next.js, Workers), Node's `IncomingHttpHeaders` (`node:http`, Express, Fastify) or a
 * plain record. Names are matched case-insensitively.
 */
export type HeadersLike =
  | HeaderGetter
  | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Anything with a fetch-style `get`, such as `Headers`. */
export interface HeaderGetter {
  /** The header's value, or `null` when it is absent. */
  get(name: string): string | null;
}

/**
 * Reads one header. Returns `undefined` when it is absent. A header given twice (two keys that
 * differ only in case, or an array of several values) is `malformed_header`, since only one of
 * them can be the one that was signed.
 */
export function readHeader(headers: HeadersLike, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) {
    throw verificationError(
      'missing_header',
      `No headers were given, so the ${name} header is missing.`,
    );
  }
  const lowerName = name.toLowerCase();
  if (typeof (headers as { get?: unknown }).get === 'function') {
    const value = (headers as HeaderGetter).get(lowerName);
    return value ?? undefined;
  }
  const record = headers as Readonly<Record<string, unknown>>;
  let found: unknown;
  let matches = 0;
  for (const key of Object.keys(record)) {
    if (key.length === lowerName.length && key.toLowerCase() === lowerName) {
      matches++;
      found = record[key];
    }
  }
  if (matches > 1) {
    throw verificationError('malformed_header', `The ${name} header is given more than once.`);
  }
  if (found === undefined) return undefined;
  if (typeof found === 'string') return found;
  if (Array.isArray(found)) {
    if (found.length === 0) return undefined;
    if (found.length > 1) {
      throw verificationError('malformed_header', `The ${name} header is given more than once.`);
    }
    const [only] = found;
    if (typeof only === 'string') return only;
  }
  throw verificationError('malformed_header', `The ${name} header is not a string.`);
}

/**
 * For the fast paths: the header as {@link readHeader} reads it, or `undefined` where it would
 * throw (the general path then reads it again and throws).
 */
export function readHeaderQuietly(headers: string | HeadersLike, name: string): unknown {
  if (typeof headers === 'string') return headers;
  try {
    return readHeader(headers, name);
  } catch {
    return undefined;
  }
}
