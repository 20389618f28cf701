import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import {
  BODY_LIMIT_BYTES,
  DELIVERY_HEADER,
  type WebhookEvent,
  webhookEventSchema,
} from '@followup/sdk';
import { SIGNATURE_HEADER, verifySignature } from '@followup/webhooks';
import type { Clock } from './clock.js';

/** The largest body the recording receiver reads (the wire's 1 MiB); a longer one is answered 413. */
const MAX_BODY_BYTES = BODY_LIMIT_BYTES;

/** One webhook delivery that reached a recording endpoint, its signature verified. */
export interface RecordedDelivery {
  /** The delivery id (`dlv_…`, the `X-Service-Delivery` header), the same on every retry. */
  readonly id: string;
  /** The event, parsed and typed by kind (`event.event` narrows it). */
  readonly event: WebhookEvent;
  /** The raw body as it arrived (UTF-8), e.g. to verify it yourself. */
  readonly body: string;
  /** The request's headers, lower-case names (a header sent twice is joined with `, `). */
  readonly headers: Readonly<Record<string, string>>;
}

/** @internal A loopback HTTP server that verifies and records every delivery it receives. */
export interface RecordingReceiver {
  readonly url: string;
  readonly deliveries: readonly RecordedDelivery[];
  nextDelivery(): Promise<RecordedDelivery>;
  /** Sets the secret deliveries are verified with (known once the endpoint exists). */
  useSecret(secret: string): void;
  close(): Promise<void>;
}

type Outcome = { delivery: RecordedDelivery } | { error: Error };

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function headersOf(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * @internal Starts a receiver on a free loopback port. Each POST is verified (the
 * `X-Service-Signature` scheme with `@followup/webhooks`, against `clock`) and parsed: a good one
 * is recorded and answered 204; anything else is answered 4xx and makes `nextDelivery()` reject
 * with the reason, so that a test fails where the delivery went wrong.
 */
export async function startRecordingReceiver(options: {
  clock: Clock;
}): Promise<RecordingReceiver> {
  const deliveries: RecordedDelivery[] = [];
  const outcomes: Outcome[] = [];
  const waiting: Array<{ resolve: (d: RecordedDelivery) => void; reject: (e: Error) => void }> = [];
  let secret: string | undefined;
  let closed = false;

  const settle = (outcome: Outcome) => {
    const waiter = waiting.shift();
    if (waiter === undefined) outcomes.push(outcome);
    else if ('delivery' in outcome) waiter.resolve(outcome.delivery);
    else waiter.reject(outcome.error);
  };

  const server = createServer(async (request, response) => {
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const raw = await readBody(request).catch(() => undefined);
    if (raw === undefined) {
      response.writeHead(413).end();
      settle({ error: new Error('A delivery was larger than the recording endpoint reads.') });
      return;
    }
    const body = raw.toString('utf8');
    const headers = headersOf(request);
    try {
      if (secret === undefined) throw new Error('The endpoint has no secret yet.');
      verifySignature(body, headers[SIGNATURE_HEADER.toLowerCase()] ?? '', {
        secret,
        now: new Date(options.clock.now()),
      });
      const event = webhookEventSchema.parse(JSON.parse(body));
      const delivery: RecordedDelivery = {
        id: headers[DELIVERY_HEADER.toLowerCase()] ?? event.id,
        event,
        body,
        headers,
      };
      deliveries.push(delivery);
      response.writeHead(204).end();
      settle({ delivery });
    } catch (error) {
      response.writeHead(400).end();
      settle({
        error: new Error(`The recording endpoint refused a delivery: ${(error as Error).message}`, {
          cause: error,
        }),
      });
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };

  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    deliveries,
    nextDelivery() {
      const outcome = outcomes.shift();
      if (outcome !== undefined) {
        return 'delivery' in outcome
          ? Promise.resolve(outcome.delivery)
          : Promise.reject(outcome.error);
      }
      if (closed) return Promise.reject(new Error('The test server is closed.'));
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    useSecret(value) {
      secret = value;
    },
    async close() {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.reject(new Error('The test server closed.'));
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
