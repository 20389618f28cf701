import { createHash } from 'node:crypto';
import { boundedText, INPUT_LIMITS } from '@followup/sdk';
import {
  type VendorProfile,
  verifyVendorSignature,
  WebhookVerificationError,
} from '@followup/webhooks';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import { problemResponses } from '../plugins/openapi.js';
import { ProblemError } from '../problem-error.js';
import { handlerErrorMessage } from '../receipts/handler-error-message.js';
import { redactHeaders } from '../secret-headers.js';
import type { Database } from '../storage/database.js';
import { recordOutboxEvent } from '../stores/outbox-store.js';
import {
  insertReceipt,
  insertVerifiedReceipt,
  markReceiptHandled,
  recordReceiptHandlerError,
} from '../stores/receipt-store.js';
import { ehrSecretVariable } from './ehr-webhook-secrets.js';

/** What an EHR vendor handler receives, once the signature verified and the 202 is sent. */
export interface EhrWebhookEvent {
  /** The `rcpt_…` id of the stored receipt. */
  receiptId: string;
  /** The vendor key. */
  vendor: string;
  /** The request body, byte for byte as it was signed. */
  rawBody: Buffer;
  /** The request headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Processes one verified EHR webhook, after the 202 was sent. Its failure is recorded on the
 * receipt and logged; it never changes the response.
 */
export type EhrWebhookHandler = (event: EhrWebhookEvent) => Promise<void>;

/**
 * How a receipt's request was judged. `replayed`: a valid signature over a delivery already
 * accepted (answered 202, not dispatched again).
 */
export type ReceiptVerdict =
  | 'valid'
  | 'replayed'
  | 'invalid_signature'
  | 'unknown_vendor'
  | 'vendor_not_supported';

/**
 * The most of a body kept on a receipt whose signature did not verify: 64 KiB (the full size
 * and SHA-256 are recorded whatever the size). Unknown and unsupported vendors keep no body.
 */
export const MAX_REJECTED_BODY_BYTES = 64 * 1024;

interface PendingHandling {
  event: EhrWebhookEvent;
  handler: EhrWebhookHandler;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** @internal A verified EHR webhook waiting for its handler, after the response. */
    ehrPending?: PendingHandling;
  }
}

/**
 * @internal `POST /api/ehr/webhooks/:ehr`: verifies the vendor's HMAC over the raw, undecoded
 * bytes (this route reads every body as bytes, whatever its content type), persists a receipt for
 * every request before answering (202, 401 `signature_invalid`, 404 `unknown_vendor`, 501
 * `vendor_not_supported`), then runs the vendor's handler after the 202.
 */
export function ehrWebhookRoutes(options: {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  profiles: Readonly<Record<string, VendorProfile>>;
  secrets: Readonly<Record<string, string | readonly string[]>>;
  handlers: Readonly<Record<string, EhrWebhookHandler>>;
  /** Header names whose values are stored as `[redacted]` (see `secretHeaderNames`). */
  secretHeaders: readonly string[];
  /** Told after a verified delivery's receipt committed its `ehr.receipt.recorded` event. */
  onOutboxEvent?: () => void;
  /** Told after every receipt is stored, with its vendor key and verdict (the metrics). */
  onReceipt?: ((receipt: { vendor: string; verdict: ReceiptVerdict }) => void) | undefined;
}): FastifyPluginAsync {
  const { database, clock, newId, profiles, secrets, handlers } = options;
  const secretHeaders = new Set(options.secretHeaders);

  /**
   * Stores a receipt: for an unknown or unsupported vendor only its size and digest (no body,
   * no headers: anyone can send those, and they prove nothing); for a bad signature at most
   * {@link MAX_REJECTED_BODY_BYTES} of the body; a replay none. Secret-bearing headers are
   * stored as `[redacted]`. These receipts announce no `ehr.receipt.recorded` event.
   */
  async function recordReceipt(
    request: FastifyRequest,
    receipt: { vendor: string; verdict: ReceiptVerdict; rawBody: Buffer; replayOf?: string },
  ): Promise<string> {
    const { vendor, verdict, rawBody } = receipt;
    const id = newId('rcpt');
    const anonymous = verdict === 'unknown_vendor' || verdict === 'vendor_not_supported';
    const kept =
      anonymous || verdict === 'replayed'
        ? Buffer.alloc(0)
        : verdict === 'invalid_signature'
          ? rawBody.subarray(0, MAX_REJECTED_BODY_BYTES)
          : rawBody;
    const headers = anonymous ? {} : redactHeaders(request.headers, secretHeaders);
    // No event: only a delivery whose signature verified announces itself (recordVerified),
    // or anyone could make the server send webhooks to its subscribers.
    await insertReceipt(database, {
      id,
      vendor,
      verdict,
      keptBody: kept,
      bodySize: rawBody.length,
      bodySha256: createHash('sha256').update(rawBody).digest(),
      headersJson: JSON.stringify(headers),
      receivedAt: new Date(clock.now()),
      replayOf: receipt.replayOf,
    });
    options.onReceipt?.({ vendor, verdict });
    return id;
  }

  /**
   * Records a verified delivery: its receipt and the digest of what the vendor signed, in one
   * transaction. A digest already recorded makes it a replay: the receipt says `replayed` and
   * names the first one, and nothing is dispatched.
   */
  async function recordVerified(
    request: FastifyRequest,
    vendor: string,
    rawBody: Buffer,
    timestamp: number | undefined,
  ): Promise<{ receiptId: string; replayed: boolean }> {
    const hash = createHash('sha256');
    if (timestamp !== undefined) hash.update(`${timestamp}.`);
    const digest = hash.update(rawBody).digest();
    const now = new Date(clock.now());
    const receiptId = newId('rcpt');
    // One statement, so atomic: the digest, and the receipt only if the digest is new. A
    // concurrent insert of the same digest makes ours do nothing and find no row: a replay. A new
    // receipt's event is written in the same transaction.
    const first = await database.transaction(async (transaction) => {
      const found = await insertVerifiedReceipt(transaction, {
        id: receiptId,
        vendor,
        digest,
        body: rawBody,
        bodySha256: createHash('sha256').update(rawBody).digest(),
        headersJson: JSON.stringify(redactHeaders(request.headers, secretHeaders)),
        receivedAt: now,
      });
      if (found === receiptId) {
        await recordOutboxEvent(
          transaction,
          {
            event: 'ehr.receipt.recorded',
            data: { id: receiptId, vendor, verdict: 'valid', receivedAt: now.toISOString() },
          },
          { clock, newId },
        );
      }
      return found;
    });
    if (first === receiptId) {
      options.onOutboxEvent?.();
      options.onReceipt?.({ vendor, verdict: 'valid' });
      return { receiptId, replayed: false };
    }
    const id = await recordReceipt(request, {
      vendor,
      verdict: 'replayed',
      rawBody,
      ...(first === null ? {} : { replayOf: first }),
    });
    return { receiptId: id, replayed: true };
  }

  return async (app) => {
    // Every body of this scope is kept as the exact bytes received: the signature covers them.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
      done(null, body);
    });

    // Handlers still running; closing the server waits for them before the storage closes.
    const running = new Set<Promise<void>>();

    async function runHandler(request: FastifyRequest, pending: PendingHandling): Promise<void> {
      const { event, handler } = pending;
      try {
        await handler(event);
        await markReceiptHandled(database, {
          id: event.receiptId,
          handledAt: new Date(clock.now()),
        });
      } catch (error) {
        request.log.error(
          { receiptId: event.receiptId, vendor: event.vendor, errorName: (error as Error)?.name },
          'EHR webhook handler failed',
        );
        await recordReceiptHandlerError(database, {
          id: event.receiptId,
          message: handlerErrorMessage(error),
        }).catch(() => {});
      }
    }

    // After the response is sent: the handler can never change it.
    app.addHook('onResponse', async (request) => {
      const pending = request.ehrPending;
      if (!pending) return;
      // runHandler records every failure itself; nothing it does may reject unobserved.
      const run = runHandler(request, pending)
        .catch(() => {})
        .finally(() => running.delete(run));
      running.add(run);
    });
    app.addHook('onClose', async () => {
      await Promise.allSettled([...running]);
    });

    app.withTypeProvider<ZodTypeProvider>().post(
      '/api/ehr/webhooks/:ehr',
      {
        // Per client address, before the body is read or anything is stored.
        onRequest: app.limitByAddress,
        // Any body, of any type, is read as the bytes the vendor signed: never invalid_json.
        config: { anyBody: true },
        schema: {
          tags: ['Inbound webhooks'],
          summary: 'Receive an EHR vendor webhook, signed with HMAC-SHA256 over the raw bytes',
          params: z.object({ ehr: boundedText({ min: 1, max: INPUT_LIMITS.vendorKey }) }),
          response: {
            202: z.object({ receiptId: z.string() }),
            ...problemResponses('signature_invalid', 'unknown_vendor', 'vendor_not_supported'),
          },
        },
      },
      async (request, reply) => {
        const vendor = request.params.ehr;
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const profile = Object.hasOwn(profiles, vendor) ? profiles[vendor] : undefined;
        if (!profile) {
          await recordReceipt(request, { vendor, verdict: 'unknown_vendor', rawBody });
          throw new ProblemError({
            code: 'unknown_vendor',
            detail: 'No EHR vendor has this key.',
          });
        }
        const secret = Object.hasOwn(secrets, vendor) ? secrets[vendor] : undefined;
        if (profile.scheme === 'none' || secret === undefined || secret.length === 0) {
          await recordReceipt(request, { vendor, verdict: 'vendor_not_supported', rawBody });
          throw new ProblemError({
            code: 'vendor_not_supported',
            detail:
              profile.scheme === 'none'
                ? `${profile.name} has no inbound webhook scheme.`
                : `No secret is configured for ${profile.name} (${ehrSecretVariable(vendor)}).`,
          });
        }
        let timestamp: number | undefined;
        try {
          ({ timestamp } = verifyVendorSignature(profile, rawBody, request.headers, {
            secret: typeof secret === 'string' ? secret : [...secret],
            now: new Date(clock.now()),
          }));
        } catch (error) {
          if (!(error instanceof WebhookVerificationError)) throw error;
          await recordReceipt(request, { vendor, verdict: 'invalid_signature', rawBody });
          throw new ProblemError({
            code: 'signature_invalid',
            detail: `The ${profile.name} signature does not verify (${error.code}).`,
          });
        }
        const { receiptId, replayed } = await recordVerified(request, vendor, rawBody, timestamp);
        const handler = handlers[vendor];
        if (handler && !replayed) {
          request.ehrPending = {
            handler,
            event: { receiptId, vendor, rawBody, headers: { ...request.headers } },
          };
        }
        return reply.code(202).send({ receiptId });
      },
    );
  };
}
