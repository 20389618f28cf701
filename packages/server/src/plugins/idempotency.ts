import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { ProblemError } from '../problem-error.js';
import type { Database } from '../storage/database.js';
import {
  deleteStaleIdempotencyKey,
  findIdempotencyKey,
  IDEMPOTENCY_WINDOW_MS,
  type IdempotencyReservation,
  purgeIdempotencyKeys,
  recordIdempotentResponse,
  releaseIdempotencyKey,
  renewIdempotencyLeases,
  reserveIdempotencyKey,
} from '../stores/idempotency-store.js';
import type { Principal } from './authentication.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** `POST` routes that honour `Idempotency-Key`. */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    /** @internal The idempotency key this request reserved. */
    idempotencyReservation?: Reservation | undefined;
  }
}

/** The request header that makes a `POST` safe to retry. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * How long a reservation outlives the last sign of life of its request. The request's server
 * renews it every {@link IDEMPOTENCY_LEASE_RENEW_MS} while the request runs, however long that
 * is; a reservation whose process died is given up once this much time has passed.
 */
export const IDEMPOTENCY_LEASE_MS = 30 * 1000;

/** How often a server renews the leases of the requests it is running. */
export const IDEMPOTENCY_LEASE_RENEW_MS = 10 * 1000;

type Reservation = IdempotencyReservation;

const keyPattern = /^[\x21-\x7e]{1,255}$/;

/**
 * @internal `Idempotency-Key` on the `POST` routes whose config says `idempotent: true`, per
 * service account: the same key with the same request within 24 hours answers the first
 * response again (`Idempotent-Replayed: true`) and runs nothing; the same key with another
 * request is 409 `idempotency_conflict`; while the first is still running, 409
 * `idempotency_in_progress` with `Retry-After: 1`, however long it runs (its lease is renewed while
 * it runs). Server errors (5xx) release the key, so a retry runs again; a reservation whose process
 * died is given up once its lease ({@link IDEMPOTENCY_LEASE_MS}) ran out.
 */
export function installIdempotency(
  app: FastifyInstance,
  options: { database: Database; clock: Clock },
): void {
  const { database, clock } = options;
  let lastPurge = Number.NEGATIVE_INFINITY;
  // The reservations of the requests this server is running, by holder: never given up while
  // here, and their leases renewed for the other instances sharing the database.
  const running = new Map<string, Reservation>();

  async function renewLeases(): Promise<void> {
    if (running.size === 0) return;
    await renewIdempotencyLeases(database, {
      reservations: [...running.values()],
      leaseExpiresAt: new Date(clock.now() + IDEMPOTENCY_LEASE_MS),
    });
  }

  let renewal: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    renewal = setInterval(() => {
      renewLeases().catch((error: unknown) => {
        app.log.error({ err: error }, 'renewing idempotency leases failed');
      });
    }, IDEMPOTENCY_LEASE_RENEW_MS);
    renewal.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(renewal);
  });

  // Callback hooks with an async slow path: every POST passes through them, most without an
  // Idempotency-Key, and an async hook costs a promise and a microtask turn per request.
  app.addHook('preHandler', (request, reply, done) => {
    const header = request.headers['idempotency-key'];
    const principal = request.principal;
    if (
      request.method !== 'POST' ||
      !request.routeOptions.config.idempotent ||
      header === undefined ||
      !principal
    ) {
      done();
      return;
    }
    // A replayed response is sent here; Fastify runs no handler for a sent reply.
    reserve(request, reply, header, principal).then(() => done(), done);
  });

  async function reserve(
    request: FastifyRequest,
    reply: FastifyReply,
    header: string | string[],
    principal: Principal,
  ): Promise<void> {
    if (typeof header !== 'string' || !keyPattern.test(header)) {
      throw new ProblemError({
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
    const accountId = principal.actor.id;
    const path = request.url;
    const digest = createHash('sha256').update(fingerprintText(request, path)).digest();
    const now = clock.now();
    if (now - lastPurge > 60 * 60 * 1000) {
      lastPurge = now;
      await purgeIdempotencyKeys(database, new Date(now - IDEMPOTENCY_WINDOW_MS));
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const holder = randomUUID();
      const reserved = await reserveIdempotencyKey(database, {
        accountId,
        key: header,
        holder,
        method: request.method,
        path,
        requestSha256: digest,
        createdAt: new Date(now),
        leaseExpiresAt: new Date(now + IDEMPOTENCY_LEASE_MS),
      });
      if (reserved) {
        const reservation = { accountId, key: header, holder };
        request.idempotencyReservation = reservation;
        running.set(holder, reservation);
        return;
      }
      const row = await findIdempotencyKey(database, { accountId, key: header });
      if (!row) continue; // released in between: try to reserve again
      const createdAt = Date.parse(row.created_at);
      const age = now - createdAt;
      // Rows from before leases had none: a minute from their creation, as then.
      const leaseEnd =
        row.lease_expires_at === null ? createdAt + 60_000 : Date.parse(row.lease_expires_at);
      const abandoned =
        row.status === null && leaseEnd <= now && (row.holder === null || !running.has(row.holder));
      if (age >= IDEMPOTENCY_WINDOW_MS || abandoned) {
        await deleteStaleIdempotencyKey(database, {
          accountId,
          key: header,
          createdAt: row.created_at,
          holder: row.holder,
        });
        continue;
      }
      if (!row.request_sha256.equals(digest)) {
        throw new ProblemError({
          code: 'idempotency_conflict',
          detail: 'This Idempotency-Key was used with another request. Use a new key.',
        });
      }
      if (row.status === null) {
        throw new ProblemError({
          code: 'idempotency_in_progress',
          detail: 'A request with this Idempotency-Key is still running. Retry shortly.',
          headers: { 'Retry-After': '1' },
        });
      }
      reply
        .code(row.status)
        .header('Idempotent-Replayed', 'true')
        .type(row.response_type ?? 'application/json; charset=utf-8')
        .serializer((payload: unknown) => String(payload))
        .send(row.response_body ?? '');
      return;
    }
    throw new ProblemError({
      code: 'idempotency_in_progress',
      detail: 'A request with this Idempotency-Key is still running. Retry shortly.',
      headers: { 'Retry-After': '1' },
    });
  }

  app.addHook('onSend', (request, reply, payload, done) => {
    const reservation = request.idempotencyReservation;
    if (!reservation) {
      done(null, payload);
      return;
    }
    request.idempotencyReservation = undefined;
    record(reply, payload, reservation).then(
      () => done(null, payload),
      (error: Error) => done(error),
    );
  });

  // Stores the response of a reserved key (or releases the key after a 5xx).
  async function record(
    reply: FastifyReply,
    payload: unknown,
    reservation: Reservation,
  ): Promise<void> {
    try {
      if (reply.statusCode >= 500) {
        await releaseIdempotencyKey(database, reservation);
      } else {
        const contentType = reply.getHeader('content-type');
        await recordIdempotentResponse(database, {
          reservation,
          status: reply.statusCode,
          body:
            typeof payload === 'string'
              ? payload
              : Buffer.isBuffer(payload)
                ? payload.toString('utf8')
                : '',
          contentType: typeof contentType === 'string' ? contentType : null,
        });
      }
    } finally {
      running.delete(reservation.holder);
    }
  }

  // A request that ends without a response sent (the client went away before its answer)
  // still holds its reservation in `running`: let its lease run out.
  app.addHook('onResponse', (request, _reply, done) => {
    const reservation = request.idempotencyReservation;
    if (reservation) running.delete(reservation.holder);
    done();
  });
}

/**
 * What an idempotent request is recognised by: its method, path and parsed body. The body parser
 * refused any body nested deeper than `MAX_JSON_BODY_DEPTH` (json-body.ts), so writing it back as
 * text cannot run out of stack.
 */
function fingerprintText(request: FastifyRequest, path: string): string {
  return JSON.stringify([request.method, path, request.body ?? null]);
}
