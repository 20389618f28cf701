// A FollowUp webhook subscriber on Express. `express.raw` keeps the body as the bytes that
// arrived (express.json() would parse it, and a re-serialised body does not verify).
import { safeVerifySignature } from '@followup/webhooks';
import express from 'express';

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
  const app = express();
  const seen = new Set(); // handled ids; a real subscriber keeps them in its database
  app.post(
    '/webhooks/followup',
    express.raw({ type: 'application/json', limit: '1mb' }),
    (request, response) => {
      if (!Buffer.isBuffer(request.body)) return response.status(415).end();
      const verified = safeVerifySignature(request.body, request.headers, { secret: secret() });
      if (!verified.ok) return response.status(400).json({ error: verified.error.code });
      const event = JSON.parse(request.body.toString('utf8'));
      if (seen.has(event.id)) return response.status(200).end();
      seen.add(event.id);
      response.once('finish', () => {
        Promise.resolve(onEvent(event)).catch((error) => console.error('onEvent failed', error));
      });
      response.status(204).end();
    },
  );
  return app;
}
