import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../clock.js';
import type { Database } from '../storage/database.js';
import { ProblemError } from './problem.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `POST` routes that honour `Idempotency-Key`. */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** @internal The idempotency key this request reserved. */
    idempotencyReservation?: { accountId: string; key: string } | undefined;
  }
}

/** The request header that makes a `POST` safe to retry. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** How long a key is remembered: 24 hours. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

// A reservation whose request never completed (the process died) is given up after this.
const abandonedAfterMs = 60 * 1000;
const keyPattern = /^[\x21-\x7e]{1,255}$/;

interface KeyRow {
  request_sha256: Buffer;
  status: number | null;
  response_body: string | null;
  response_type: string | null;
  created_at: Date;
}

/**
 * @internal `Idempotency-Key` on the `POST` routes whose config says `idempotent: true`, per
 * service account: the same key with the same request within 24 hours answers the first
 * response again (`Idempotent-Replayed: true`) and runs nothing; the same key with another
 * request is 409 `idempotency_conflict`; while the first is still running, 409
 * `idempotency_in_progress`. Server errors (5xx) release the key, so a retry runs again.
 */
export function installIdempotency(
  app: FastifyInstance,
  options: { database: Database; clock: Clock },
): void {
  const { database, clock } = options;
  let lastPurge = Number.NEGATIVE_INFINITY;

  app.addHook('preHandler', async (request, reply) => {
    if (request.method !== 'POST' || !request.routeOptions.config.idempotent) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const principal = request.principal;
    if (!principal) return;
    if (typeof header !== 'string' || !keyPattern.test(header)) {
      throw new ProblemError({
        status: 400,
        code: 'validation_failed',
        detail: 'The request is not valid: see errors.',
        errors: [
          {
            path: IDEMPOTENCY_KEY_HEADER,
            message: 'must be 1 to 255 visible ASCII characters, once',
          },
        ],
      });
    }
    const accountId = principal.account.id;
    const path = request.url;
    const digest = createHash('sha256')
      .update(JSON.stringify([request.method, path, request.body ?? null]))
      .digest();
    const now = clock.now();
    if (now - lastPurge > 60 * 60 * 1000) {
      lastPurge = now;
      await database.query('DELETE FROM idempotency_keys WHERE created_at < $1', [
        new Date(now - IDEMPOTENCY_WINDOW_MS),
      ]);
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const reserved = await database.query(
        `INSERT INTO idempotency_keys (account_id, key, method, path, request_sha256, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, key) DO NOTHING`,
        [accountId, header, request.method, path, digest, new Date(now)],
      );
      if (reserved.rowCount === 1) {
        request.idempotencyReservation = { accountId, key: header };
        return;
      }
      const { rows } = await database.query<KeyRow>(
        `SELECT request_sha256, status, response_body, response_type, created_at
           FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
        [accountId, header],
      );
      const row = rows[0];
      if (!row) continue; // released in between: try to reserve again
      const age = now - row.created_at.getTime();
      if (age >= IDEMPOTENCY_WINDOW_MS || (row.status === null && age >= abandonedAfterMs)) {
        await database.query(
          'DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND created_at = $3',
          [accountId, header, row.created_at],
        );
        continue;
      }
      if (!row.request_sha256.equals(digest)) {
        throw new ProblemError({
          status: 409,
          code: 'idempotency_conflict',
          detail: 'This Idempotency-Key was used with another request. Use a new key.',
        });
      }
      if (row.status === null) {
        throw new ProblemError({
          status: 409,
          code: 'idempotency_in_progress',
          detail: 'A request with this Idempotency-Key is still running. Retry shortly.',
          headers: { 'Retry-After': '1' },
        });
      }
      return reply
        .code(row.status)
        .header('Idempotent-Replayed', 'true')
        .type(row.response_type ?? 'application/json; charset=utf-8')
        .serializer((payload: unknown) => String(payload))
        .send(row.response_body ?? '');
    }
    throw new ProblemError({
      status: 409,
      code: 'idempotency_in_progress',
      detail: 'A request with this Idempotency-Key is still running. Retry shortly.',
      headers: { 'Retry-After': '1' },
    });
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const reservation = request.idempotencyReservation;
    if (!reservation) return payload;
    request.idempotencyReservation = undefined;
    if (reply.statusCode >= 500) {
      await database.query('DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2', [
        reservation.accountId,
        reservation.key,
      ]);
    } else {
      const contentType = reply.getHeader('content-type');
      await database.query(
        `UPDATE idempotency_keys SET status = $3, response_body = $4, response_type = $5
          WHERE account_id = $1 AND key = $2`,
        [
          reservation.accountId,
          reservation.key,
          reply.statusCode,
          typeof payload === 'string'
            ? payload
            : Buffer.isBuffer(payload)
              ? payload.toString('utf8')
              : '',
          typeof contentType === 'string' ? contentType : null,
        ],
      );
    }
    return payload;
  });
}
