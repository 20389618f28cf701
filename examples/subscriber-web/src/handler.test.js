import { once } from 'node:events';
import { checkSubscriber, useExampleServer } from '@followup/example-support';
import { signPayload } from '@followup/webhooks/web';
import { expect, it } from 'vitest';
import { createHandler } from './handler.js';
import { serveOnNode } from './serve-node.js';

const server = useExampleServer('subscriber-web');

it('receives a real delivery from followup-server, once, and refuses forged ones', async () => {
  const result = await checkSubscriber({
    storage: server.storage,
    server,
    start: async (options) => {
      const listener = serveOnNode(createHandler(options)).listen(0, '127.0.0.1');
      await once(listener, 'listening');
      return {
        url: `http://127.0.0.1:${listener.address().port}/webhooks/followup`,
        close: async () => {
          listener.closeAllConnections();
          await new Promise((resolve) => listener.close(resolve));
        },
      };
    },
  });
  expect(result.event).toMatchObject({ event: 'contact.created', data: { id: result.contact.id } });
  expect(result.repeatStatus).toBe(200);
  expect(result.handledCount()).toBe(1);
  expect(result.forged).toEqual({ status: 400, body: '{"error":"no_matching_signature"}' });
  expect(result.unsigned).toEqual({ status: 400, body: '{"error":"missing_header"}' });
});

it('hands the work to waitUntil and answers without waiting for it', async () => {
  const secret = 'whsec_web_example';
  let finish;
  const gate = new Promise((resolve) => {
    finish = resolve;
  });
  let done = false;
  const work = [];
  const handler = createHandler({
    secret: () => secret,
    onEvent: async () => {
      await gate;
      done = true;
    },
  });
  const body = JSON.stringify({
    id: 'dlv_1',
    event: 'contact.created',
    createdAt: '2026-01-01T00:00:00Z',
    data: {},
  });
  const request = new Request('http://subscriber.test/webhooks/followup', {
    method: 'POST',
    body,
    headers: { 'x-service-signature': await signPayload(body, { secret }) },
  });
  const response = await handler(request, (promise) => work.push(promise));
  expect(response.status).toBe(204);
  expect(work).toHaveLength(1);
  expect(done).toBe(false); // answered while the work still waits
  finish();
  await work[0];
  expect(done).toBe(true);
});
