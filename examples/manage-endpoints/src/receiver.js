// A local webhook receiver: it verifies every delivery's signature over the raw body with
// @followup/webhooks before reading it, keeps what arrived, and answers at once.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { safeVerifySignature } from '@followup/webhooks';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Starts a receiver on a free loopback port. Its secret is set once the endpoint is registered
 * (the server makes it); until then every delivery is refused.
 *
 * @returns {Promise<{
 *   url: string,
 *   arrived: { deliveryId: string, eventId: string | undefined, event: string, data: object }[],
 *   refused: number,
 *   useSecret(secret: string): void,
 *   close(): Promise<void>,
 * }>}
 */
export async function startReceiver() {
  /** @type {string | undefined} */
  let secret;
  const receiver = {
    url: '',
    /** @type {{ deliveryId: string, eventId: string | undefined, event: string, data: object }[]} */
    arrived: [],
    refused: 0,
    /** @param {string} value */
    useSecret(value) {
      secret = value;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const server = createServer(async (request, response) => {
    const chunks = [];
    let size = 0;
    for await (const chunk of request) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.writeHead(413).end();
        return;
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    const verified = secret
      ? safeVerifySignature(body, request.headers, { secret })
      : { ok: false };
    if (!verified.ok) {
      receiver.refused += 1;
      response.writeHead(400).end();
      return;
    }
    const event = JSON.parse(body.toString('utf8'));
    // A retry carries the same delivery id: keep one of each.
    if (!receiver.arrived.some((seen) => seen.deliveryId === event.id)) {
      receiver.arrived.push({
        deliveryId: event.id,
        eventId: event.eventId,
        event: event.event,
        data: event.data,
      });
    }
    response.writeHead(204).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  receiver.url = `http://127.0.0.1:${address.port}/webhooks/followup`;
  return receiver;
}
