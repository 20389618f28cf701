import { SIGNATURE_HEADER, STANDARD_WEBHOOK_HEADERS } from '@followup/webhooks/web';

/**
 * The header that carries the inbox webhook's shared secret (`POST /api/inbox/webhook`), in
 * lower case as Node reports header names.
 *
 * @example
 * ```ts
 * await fetch(`${baseUrl}/api/inbox/webhook`, { method: 'POST', headers: { [INBOX_SECRET_HEADER]: secret } });
 * ```
 */
export const INBOX_SECRET_HEADER = 'x-service-webhook-secret';

/**
 * The header that carries the CSRF token of a web session on unsafe methods, in lower case.
 *
 * @example
 * ```ts
 * headers[CSRF_TOKEN_HEADER] = csrfToken;
 * ```
 */
export const CSRF_TOKEN_HEADER = 'x-csrf-token';

/**
 * Every header of the interface that carries a credential, a session or a signature, in lower
 * case: bearer tokens, cookies, the CSRF token, the inbox webhook's secret, and the signatures of
 * outbound webhooks (FollowUp's and Standard Webhooks'). Never log their values; the server
 * redacts them, and adds the signature header of each EHR vendor profile it serves.
 *
 * @example
 * ```ts
 * const safe = Object.fromEntries(
 *   Object.entries(headers).map(([name, value]) => [name, SECRET_HEADERS.includes(name) ? '[redacted]' : value]),
 * );
 * ```
 */
export const SECRET_HEADERS: readonly string[] = Object.freeze([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  CSRF_TOKEN_HEADER,
  INBOX_SECRET_HEADER,
  SIGNATURE_HEADER.toLowerCase(),
  STANDARD_WEBHOOK_HEADERS.signature,
]);
