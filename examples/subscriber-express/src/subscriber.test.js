import { once } from 'node:events';
import { checkSubscriber, useExampleServer } from '@followup/example-support';
import { expect, it } from 'vitest';
import { buildSubscriber } from './subscriber.js';

const server = useExampleServer('subscriber-express');

it('receives a real delivery from followup-server, once, and refuses forged ones', async () => {
  const result = await checkSubscriber({
    storage: server.storage,
    server,
    start: async (options) => {
      const listener = buildSubscriber(options).listen(0, '127.0.0.1');
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
