import { ConfigurationError } from '../follow-up-error.js';

/** The lower-case names of the headers the client sets itself: no option replaces them. */
export const OWN_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'content-type',
  'idempotency-key',
]);

/**
 * Checks headers given as an option and returns them with lower-case names, without the ones
 * the client sets itself.
 */
export function checkHeaders(headers: unknown, where: string): Readonly<Record<string, string>> {
  if (headers === undefined) return {};
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new ConfigurationError({
      message: `${where} must be an object of header names to strings.`,
    });
  }
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) ||
      typeof value !== 'string' ||
      /[\r\n\0]/.test(value)
    ) {
      throw new ConfigurationError({
        message: `${where}: "${name}" must be a header name with a string value on one line.`,
      });
    }
    const lower = name.toLowerCase();
    if (!OWN_HEADERS.has(lower)) checked[lower] = value;
  }
  return checked;
}

const MAX_TIMEOUT_MS = 2_147_483_647;

/** Checks a timeout option: a whole number of milliseconds between 1 and about 24.8 days. */
export function checkTimeout(timeout: unknown, where: string): number {
  if (
    typeof timeout !== 'number' ||
    !Number.isInteger(timeout) ||
    timeout < 1 ||
    timeout > MAX_TIMEOUT_MS
  ) {
    throw new ConfigurationError({
      message: `${where} must be a whole number of milliseconds between 1 and ${MAX_TIMEOUT_MS}.`,
    });
  }
  return timeout;
}

/** Checks a retry count: a whole number between 0 and 10. */
export function checkMaxRetries(maxRetries: unknown, where: string): number {
  if (
    typeof maxRetries !== 'number' ||
    !Number.isInteger(maxRetries) ||
    maxRetries < 0 ||
    maxRetries > 10
  ) {
    throw new ConfigurationError({ message: `${where} must be a whole number from 0 to 10.` });
  }
  return maxRetries;
}

/** Checks an `Idempotency-Key`: 1 to 255 visible ASCII characters. */
export function checkIdempotencyKey(key: unknown): string {
  if (typeof key !== 'string' || !/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new ConfigurationError({
      message: 'idempotencyKey must be 1 to 255 visible ASCII characters, e.g. a UUID.',
    });
  }
  return key;
}

/**
 * Whether a URL's host is this machine: `localhost` (and names under `.localhost`), 127.0.0.0/8
 * or `[::1]`. Plain `http:` is only for these, where nothing crosses a network.
 */
function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/** A client's `baseUrl` checked and normalised (no trailing slash); a {@link ConfigurationError} if unusable. */
export function checkBaseUrl(baseUrl: unknown, allowInsecureHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(String(baseUrl));
  } catch {
    throw new ConfigurationError({
      message: 'baseUrl must be an absolute http or https URL, e.g. https://followup.example.com.',
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigurationError({ message: 'baseUrl must use http or https.' });
  }
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    throw new ConfigurationError({
      message:
        'baseUrl must use https for a host other than this machine (the token and the data would ' +
        'cross the network in clear); pass allowInsecureHttp: true to use http anyway.',
    });
  }
  if (url.username !== '' || url.password !== '') {
    throw new ConfigurationError({ message: 'baseUrl must not carry credentials; use the token.' });
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ConfigurationError({ message: 'baseUrl must not have a query or a fragment.' });
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
