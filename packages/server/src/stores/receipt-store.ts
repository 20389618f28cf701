import { checkReceiptFilter, type ReceiptFilter } from '../receipts/receipt-filter.js';
import { isRedactedHeader } from '../receipts/redacted-header.js';
import type { Queryable } from '../storage/database.js';

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

/**
 * @internal EHR receipts, newest first, filtered by vendor, verdict and time (`since` inclusive,
 * `until` exclusive). Unknown verdicts, bad times and limits are `invalid_filter`
 * (see `checkReceiptFilter`).
 */
export async function listReceipts(
  database: Queryable,
  filter: ReceiptFilter = {},
): Promise<ReceiptSummary[]> {
  const checked = checkReceiptFilter(filter);
  const { rows } = await database.query<ReceiptRow>(
    `SELECT id, vendor, verdict, received_at, handled_at, handler_error,
            COALESCE(body_size, octet_length(raw_body)) AS body_bytes
       FROM ehr_receipts
      WHERE ($1::text IS NULL OR vendor = $1) AND ($2::text IS NULL OR verdict = $2)
        AND ($3::timestamptz IS NULL OR received_at >= $3)
        AND ($4::timestamptz IS NULL OR received_at < $4)
      ORDER BY received_at DESC, id DESC LIMIT $5 OFFSET $6`,
    [checked.vendor, checked.verdict, checked.since, checked.until, checked.limit, checked.offset],
  );
  return rows.map(toSummary);
}

/** @internal A page of {@link listReceiptsInOrder}: one vendor's receipts or everyone's. */
export interface ReceiptPage {
  /** Only this vendor's receipts; every vendor's when absent. */
  vendor?: string | undefined;
  /** Rows to return (checked by the caller). */
  limit: number;
  /** Rows to skip (checked by the caller). */
  offset: number;
}

/**
 * @internal EHR receipts oldest first, as the operator's `receipts list` prints them (the
 * console's {@link listReceipts} shows the newest first).
 */
export async function listReceiptsInOrder(
  database: Queryable,
  page: ReceiptPage,
): Promise<ReceiptSummary[]> {
  const { rows } = await database.query<ReceiptRow>(
    `SELECT id, vendor, verdict, received_at, handled_at, handler_error,
              COALESCE(body_size, octet_length(raw_body)) AS body_bytes
         FROM ehr_receipts WHERE $1::text IS NULL OR vendor = $1
        ORDER BY received_at, id LIMIT $2 OFFSET $3`,
    [page.vendor ?? null, page.limit, page.offset],
  );
  return rows.map(toSummary);
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

/** @internal A receipt to store, its body already cut to what its verdict keeps. */
export interface NewReceipt {
  /** The `rcpt_…` id. */
  id: string;
  vendor: string;
  verdict: string;
  /** What is kept of the body (possibly nothing). */
  keptBody: Buffer;
  /** The size of the whole body received, in bytes. */
  bodySize: number;
  /** SHA-256 of the whole body received. */
  bodySha256: Buffer;
  /** The headers as JSON, secret-bearing ones already `[redacted]`. */
  headersJson: string;
  receivedAt: Date;
  /** For a replay: the receipt of the delivery first accepted. */
  replayOf?: string | undefined;
}

/** @internal Stores a receipt that announces nothing (any verdict but a first valid one). */
export async function insertReceipt(database: Queryable, receipt: NewReceipt): Promise<void> {
  await database.query(
    `INSERT INTO ehr_receipts
       (id, vendor, verdict, raw_body, body_size, body_sha256, headers, received_at, replay_of)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      receipt.id,
      receipt.vendor,
      receipt.verdict,
      receipt.keptBody,
      receipt.bodySize,
      receipt.bodySha256,
      receipt.headersJson,
      receipt.receivedAt,
      receipt.replayOf ?? null,
    ],
  );
}

/** @internal A delivery whose signature verified: its receipt, and the digest it was signed over. */
export interface VerifiedReceipt {
  /** The id the receipt takes if the digest is new. */
  id: string;
  vendor: string;
  /** SHA-256 of what the vendor signed (its timestamp and the body). */
  digest: Buffer;
  body: Buffer;
  /** SHA-256 of the body. */
  bodySha256: Buffer;
  /** The headers as JSON, secret-bearing ones already `[redacted]`. */
  headersJson: string;
  receivedAt: Date;
}

/**
 * @internal Records a verified delivery's digest and, only if the digest is new, its `valid`
 * receipt, in one statement (so atomic: a concurrent insert of the same digest makes this one
 * do nothing). Answers the id of the receipt that first carried the digest: `receipt.id` when
 * it is new, another for a replay, `null` when a concurrent first one is not yet visible.
 */
export async function insertVerifiedReceipt(
  transaction: Queryable,
  receipt: VerifiedReceipt,
): Promise<string | null> {
  const { rows } = await transaction.query<{ receipt_id: string }>(
    `WITH inserted AS (
         INSERT INTO ehr_delivery_digests (vendor, digest, receipt_id, received_at)
         VALUES ($1, $2, $3, $4) ON CONFLICT (vendor, digest) DO NOTHING
         RETURNING receipt_id),
       receipt AS (
         INSERT INTO ehr_receipts
           (id, vendor, verdict, raw_body, body_size, body_sha256, headers, received_at)
         SELECT receipt_id, $1, 'valid', $5, $6, $7, $8, $4 FROM inserted
         RETURNING id)
       SELECT id AS receipt_id FROM receipt
       UNION ALL
       SELECT receipt_id FROM ehr_delivery_digests WHERE vendor = $1 AND digest = $2
       LIMIT 1`,
    [
      receipt.vendor,
      receipt.digest,
      receipt.id,
      receipt.receivedAt,
      receipt.body,
      receipt.body.length,
      receipt.bodySha256,
      receipt.headersJson,
    ],
  );
  return rows[0]?.receipt_id ?? null;
}

/** @internal Marks a receipt's handler as done. */
export async function markReceiptHandled(
  database: Queryable,
  handled: { id: string; handledAt: Date },
): Promise<void> {
  await database.query('UPDATE ehr_receipts SET handled_at = $2 WHERE id = $1', [
    handled.id,
    handled.handledAt,
  ]);
}

/** @internal Records why a receipt's handler failed (a message without the error's payload). */
export async function recordReceiptHandlerError(
  database: Queryable,
  failure: { id: string; message: string },
): Promise<void> {
  await database.query('UPDATE ehr_receipts SET handler_error = $2 WHERE id = $1', [
    failure.id,
    failure.message,
  ]);
}

/** @internal Deletes the receipts received before `receivedBefore`; answers how many went. */
export async function pruneReceipts(database: Queryable, receivedBefore: Date): Promise<number> {
  const { rowCount } = await database.query('DELETE FROM ehr_receipts WHERE received_at < $1', [
    receivedBefore,
  ]);
  return rowCount;
}

/**
 * @internal Deletes the replay digests of deliveries received before `receivedBefore`; answers
 * how many went.
 */
export async function pruneDeliveryDigests(
  database: Queryable,
  receivedBefore: Date,
): Promise<number> {
  const { rowCount } = await database.query(
    'DELETE FROM ehr_delivery_digests WHERE received_at < $1',
    [receivedBefore],
  );
  return rowCount;
}
