import { LIST_LIMITS } from '@followup/sdk';
import { FollowUpServerError } from '../errors.js';
import { secretHeaderNames } from '../secret-headers.js';
import type { Queryable } from '../storage/database.js';

/** What the server answered an inbound EHR webhook, as recorded on its receipt. */
export const receiptVerdicts = [
  'valid',
  'replayed',
  'invalid_signature',
  'unknown_vendor',
  'vendor_not_supported',
] as const;

/** One of {@link receiptVerdicts}. */
export type ReceiptVerdictName = (typeof receiptVerdicts)[number];

/** @internal A receipt as lists show it: never its body or headers. */
export interface ReceiptSummary {
  id: string;
  vendor: string;
  verdict: string;
  receivedAt: string;
  handledAt: string | null;
  handlerError: string | null;
  bodyBytes: number;
}

/** @internal One receipt in full: headers redacted, the body's first bytes as text. */
export interface ReceiptDetail extends ReceiptSummary {
  /** Header names (lower case) and values; credentials and signatures are `[redacted]`. */
  headers: [string, string][];
  /** The body's first {@link RECEIPT_BODY_PREVIEW_BYTES} bytes, decoded as UTF-8 (lossy). */
  bodyPreview: string;
  /** Whether the body is longer than the preview. */
  bodyTruncated: boolean;
}

/** @internal The most bytes of a receipt's body a page shows: 64 KiB. */
export const RECEIPT_BODY_PREVIEW_BYTES = 64 * 1024;

/** @internal Filters of {@link listReceipts}. */
export interface ReceiptFilter {
  vendor?: string;
  verdict?: string;
  /** ISO 8601: received at or after. */
  since?: string;
  /** ISO 8601: received before. */
  until?: string;
  /** 1 to 200, default 50. */
  limit?: number;
  /** Rows to skip, 0 to 100,000. */
  offset?: number;
}

interface ReceiptRow {
  id: string;
  vendor: string;
  verdict: string;
  received_at: string;
  handled_at: string | null;
  handler_error: string | null;
  body_bytes: number;
}

function toSummary(row: ReceiptRow): ReceiptSummary {
  return {
    id: row.id,
    vendor: row.vendor,
    verdict: row.verdict,
    receivedAt: row.received_at,
    handledAt: row.handled_at,
    handlerError: row.handler_error,
    bodyBytes: row.body_bytes,
  };
}

function invalid(message: string): FollowUpServerError {
  return new FollowUpServerError({ code: 'invalid_filter', message });
}

function instant(value: string | undefined, name: string): Date | null {
  if (value === undefined) return null;
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(value) || Number.isNaN(time)) {
    throw invalid(`${name} is an ISO 8601 date or time.`);
  }
  return new Date(time);
}

/**
 * @internal EHR receipts, newest first, filtered by vendor, verdict and time (`since` inclusive,
 * `until` exclusive). Unknown verdicts, bad times and limits are `invalid_filter`.
 */
export async function listReceipts(
  database: Queryable,
  filter: ReceiptFilter = {},
): Promise<ReceiptSummary[]> {
  const { defaultLimit, maxLimit, maxOffset } = LIST_LIMITS;
  const limit = filter.limit ?? defaultLimit;
  const offset = filter.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
    throw invalid(`limit is 1 to ${maxLimit}.`);
  }
  if (!Number.isInteger(offset) || offset < 0 || offset > maxOffset) {
    throw invalid(`offset is 0 to ${maxOffset}.`);
  }
  if (
    filter.verdict !== undefined &&
    !(receiptVerdicts as readonly string[]).includes(filter.verdict)
  ) {
    throw invalid(`The outcome is one of ${receiptVerdicts.join(', ')}.`);
  }
  const { rows } = await database.query<ReceiptRow>(
    `SELECT id, vendor, verdict, received_at, handled_at, handler_error,
            COALESCE(body_size, octet_length(raw_body)) AS body_bytes
       FROM ehr_receipts
      WHERE ($1::text IS NULL OR vendor = $1) AND ($2::text IS NULL OR verdict = $2)
        AND ($3::timestamptz IS NULL OR received_at >= $3)
        AND ($4::timestamptz IS NULL OR received_at < $4)
      ORDER BY received_at DESC, id DESC LIMIT $5 OFFSET $6`,
    [
      filter.vendor ?? null,
      filter.verdict ?? null,
      instant(filter.since, 'since'),
      instant(filter.until, 'until'),
      limit,
      offset,
    ],
  );
  return rows.map(toSummary);
}

// Headers that carry credentials or signatures: the one list (the interface's and every vendor
// profile's signature header; receipts already store them as [redacted]). Any header whose
// name says secret, signature, token or auth is hidden too.
const redactedNames = new Set(secretHeaderNames());

/** @internal Whether a header's value is hidden on receipt pages. */
export function isRedactedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return redactedNames.has(lower) || /secret|signature|token|auth|api-?key|password/.test(lower);
}

/** @internal One receipt with its redacted headers and the first bytes of its body. */
export async function getReceipt(
  database: Queryable,
  id: string,
): Promise<ReceiptDetail | undefined> {
  const { rows } = await database.query<
    ReceiptRow & { headers: Record<string, string | string[]>; body_preview: Buffer }
  >(
    `SELECT id, vendor, verdict, received_at, handled_at, handler_error, headers,
            COALESCE(body_size, octet_length(raw_body)) AS body_bytes, substring(raw_body FROM 1 FOR $2) AS body_preview
       FROM ehr_receipts WHERE id = $1`,
    [id, RECEIPT_BODY_PREVIEW_BYTES],
  );
  const row = rows[0];
  if (!row) return undefined;
  const headers: [string, string][] = Object.entries(row.headers ?? {}).map(([name, value]) => [
    name,
    isRedactedHeader(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : String(value),
  ]);
  return {
    ...toSummary(row),
    headers,
    bodyPreview: Buffer.from(row.body_preview).toString('utf8'),
    bodyTruncated: row.body_bytes > RECEIPT_BODY_PREVIEW_BYTES,
  };
}
