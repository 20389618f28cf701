// The end-to-end check every subscriber example passes: a real server delivers a real event to
// it, and a forged one is refused.
import { FollowUp } from '@followup/sdk';
import { SIGNATURE_HEADER, signPayload } from '@followup/webhooks';
import { operator } from './server-process.js';

/**
 * @typedef {{ id: string, event: string, data: { id: string } }} DeliveredEvent
 * @typedef {(options: { secret: () => string[], onEvent: (event: DeliveredEvent) => void }) =>
 *   Promise<{ url: string, close: () => Promise<void> }>} StartSubscriber
 */

/**
 * Starts the subscriber, subscribes it to the running server (`endpoints add`), creates a contact
 * through the SDK and waits for its `contact.created`; then posts the same delivery again (a
 * retry) and a forged one. Resolves with what happened, for the test to assert.
 *
 * @param {{ storage: object, server: { url: string, token: string }, start: StartSubscriber }} options
 */
export async function checkSubscriber({ storage, server, start }) {
  let secrets = [];
  const handled = [];
  let resolveFirst;
  const first = new Promise((resolve) => {
    resolveFirst = resolve;
  });
  const subscriber = await start({
    secret: () => secrets,
    onEvent: (event) => {
      handled.push(event);
      resolveFirst(event);
    },
  });
  try {
    const endpoint = await operator(storage, ['endpoints', 'add', '--url', subscriber.url]);
    secrets = [endpoint.secret];
    const client = new FollowUp({ token: server.token, baseUrl: server.url });
    const contact = await client.contacts.create({ firstName: 'Grace', lastName: 'Hopper' });
    const event = await first;

    const body = JSON.stringify(event);
    const headers = { 'content-type': 'application/json' };
    const again = await fetch(subscriber.url, {
      method: 'POST',
      body,
      headers: {
        ...headers,
        [SIGNATURE_HEADER]: signPayload(body, { secret: endpoint.secret }),
      },
    });
    const forged = await fetch(subscriber.url, {
      method: 'POST',
      body,
      headers: { ...headers, [SIGNATURE_HEADER]: signPayload(body, { secret: 'whsec_forged' }) },
    });
    const unsigned = await fetch(subscriber.url, { method: 'POST', body, headers });
    return {
      contact,
      event,
      handledCount: () => handled.length,
      repeatStatus: again.status,
      forged: { status: forged.status, body: await forged.text() },
      unsigned: { status: unsigned.status, body: await unsigned.text() },
    };
  } finally {
    await subscriber.close();
  }
}
