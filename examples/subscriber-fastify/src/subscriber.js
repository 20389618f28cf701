// A FollowUp webhook subscriber on Fastify. The JSON body is kept as the bytes that arrived
// (a parsed and re-serialised body would not verify), verified, then parsed.
import { safeVerifySignature } from '@followup/webhooks';
import Fastify from 'fastify';

/**
 * Builds the subscriber: `POST /webhooks/followup`.
 *
 * @param {object} options
 * @param {() => string | string[]} options.secret The endpoint's signing secret (old and new ones
 *   during a rotation), read at each request so a rotation needs no restart.
 * @param {(event: { id: string, event: string, data: object }) => void | Promise<void>} options.onEvent
 *   Called once per delivery id, after the answer was sent.
 */
export function buildSubscriber({ secret, onEvent }) {
  const app = Fastify();
  // Handled ids; a real subscriber keeps them in its database, with a time to live.
  const seen = new Set();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: 1024 * 1024 },
    (_request, body, done) => done(null, body),
  );
  app.post('/webhooks/followup', async (request, reply) => {
    const verified = safeVerifySignature(request.body, request.headers, { secret: secret() });
    // The code never holds the body, a secret or a signature: safe to log and to answer.
    if (!verified.ok) return reply.code(400).send({ error: verified.error.code });
    const event = JSON.parse(request.body.toString('utf8'));
    if (seen.has(event.id)) return reply.code(200).send(); // a repeat: already handled
    seen.add(event.id);
    // Answer first; the work happens after (a real subscriber would enqueue it).
    reply.raw.once('finish', () => {
      Promise.resolve(onEvent(event)).catch((error) =>
        request.log.error({ err: error }, 'onEvent'),
      );
    });
    return reply.code(204).send();
  });
  return app;
}
