// A webhook subscriber that does what the @followup/webhooks README recommends: read the raw
// body (bounded), verify it before parsing, deduplicate by delivery id, answer at once and hand
// the event to slower work afterwards.
import { createServer } from 'node:http';
import { safeVerifySignature } from '@followup/webhooks';

const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Creates the subscriber's HTTP server.
 *
 * @param {object} options
 * @param {string | string[]} options.secret The endpoint's signing secret (or old and new ones).
 * @param {(event: object) => void} options.onEvent Called once per delivery id, after the answer.
 * @param {() => number} [options.now] Unix seconds, for tests.
 */
export function createSubscriber({ secret, onEvent, now }) {
  const seen = new Set();
  return createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/webhooks/followup') {
      response.writeHead(404).end();
      return;
    }
    const chunks = [];
    let size = 0;
    for await (const chunk of request) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.writeHead(413).end();
        request.destroy();
        return;
      }
      chunks.push(chunk);
    }
    const body = Buffer.concat(chunks);
    const verified = safeVerifySignature(body, request.headers, {
      secret,
      ...(now ? { now: now() } : {}),
    });
    if (!verified.ok) {
      // The code is safe to log: it never holds the body, a secret or a signature.
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: verified.error.code }));
      return;
    }
    const event = JSON.parse(body.toString('utf8'));
    if (seen.has(event.id)) {
      response.writeHead(200).end(); // a repeat of a delivery already handled
      return;
    }
    seen.add(event.id);
    response.writeHead(204).end();
    setImmediate(() => onEvent(event));
  });
}
