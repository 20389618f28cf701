// A webhook receiver built with client.webhooks.handler, fed by the real server's outbound
// deliveries: real signatures (X-Service-Signature and the Standard Webhooks headers), real
// event bodies, real retries after a failure.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { startTestServer } from '@followup/server/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

let server;
const listeners = [];
beforeAll(async () => {
  server = await startTestServer({ deliveryRetryDelays: [0.05, 0.05, 0.05] });
});
afterAll(async () => {
  for (const listener of listeners) {
    listener.closeAllConnections();
    listener.close();
  }
  await server.close();
});

/** Serves a Node `(req, res)` handler on a free loopback port; resolves its URL. */
async function serve(handle) {
  const listener = createServer(handle).listen(0, '127.0.0.1');
  listeners.push(listener);
  await once(listener, 'listening');
  return `http://127.0.0.1:${listener.address().port}/webhooks/followup`;
}

/** Resolves once `condition()` holds, checking after each turn of the event loop. */
function until(condition) {
  return new Promise((resolve) => {
    const look = () => (condition() ? resolve() : setImmediate(look));
    look();
  });
}

/**
 * A receiver on its own port for a new endpoint. `prepare(request)` may change the request
 * before the handler sees it; every request that arrives is recorded, for replaying it.
 */
async function receiver(on, prepare = () => {}) {
  const arrived = [];
  let handler;
  const url = await serve((request, response) => {
    prepare(request);
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      arrived.push({ headers: { ...request.headers }, body: Buffer.concat(chunks) });
      // The raw bytes as a framework's raw body parser would leave them (express.raw()).
      request.body = arrived.at(-1).body;
      void handler.node(request, response);
    });
  });
  const endpoint = await server.addEndpoint({ url });
  handler = server.client.webhooks.handler({ secret: endpoint.secret, on, onError: () => {} });
  return { url, arrived };
}

it('handles each real delivery once, typed by kind, and again after a failure', async () => {
  const created = [];
  const updated = [];
  const others = [];
  let updateAttempts = 0;
  const { url, arrived } = await receiver({
    'contact.created': (event) => {
      created.push(event.data.id);
    },
    'contact.updated': (event) => {
      // The first attempt fails: the handler answers 500 and the server sends it again.
      if (updateAttempts++ === 0) throw new Error('not now');
      updated.push(event.previousAttributes);
    },
    '*': (event) => {
      others.push(String(event.event));
    },
  });

  const contact = await server.client.contacts.create({ firstName: 'Ada', lastName: 'Lovelace' });
  await server.client.contacts.update(contact.id, { lastName: 'King' });
  await server.client.contacts.delete(contact.id);
  await until(() => created.length === 1 && updated.length === 1 && others.length === 1);
  expect(created).toEqual([contact.id]);
  expect(updated).toEqual([{ lastName: 'Lovelace' }]);
  expect(others).toEqual(['contact.deleted']);
  expect(updateAttempts).toBe(2);

  // A real delivery sent again (a retry whose answer was lost, or a replay) is acknowledged
  // and not handled twice.
  const first = arrived[0];
  const replay = await fetch(url, { method: 'POST', headers: first.headers, body: first.body });
  expect(replay.status).toBe(204);
  expect(created).toEqual([contact.id]);
  // A forged one is refused.
  const forged = await fetch(url, {
    method: 'POST',
    headers: first.headers,
    body: first.body.toString().replace('Ada', 'Eve'),
  });
  expect(forged.status).toBe(401);
});

it('verifies the Standard Webhooks headers of a real delivery', async () => {
  const created = [];
  await receiver(
    { 'contact.created': (event) => void created.push(event.data.firstName) },
    // Only the Standard Webhooks headers reach the handler.
    (request) => delete request.headers['x-service-signature'],
  );
  await server.client.contacts.create({ firstName: 'Grace', lastName: 'Hopper' });
  await until(() => created.includes('Grace'));
  expect(created.filter((name) => name === 'Grace')).toHaveLength(1);
});
