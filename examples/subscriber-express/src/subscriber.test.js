import { once } from 'node:events';
import { checkSubscriber, scratchDataDir, startServer } from '@followup/example-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildSubscriber } from './subscriber.js';

const scratch = scratchDataDir('subscriber-express');
let server;
beforeAll(async () => {
  server = await startServer(scratch.storage);
});
afterAll(async () => {
  await server?.stop();
  scratch.remove();
});

it('receives a real delivery from followup-server, once, and refuses forged ones', async () => {
  const result = await checkSubscriber({
    storage: scratch.storage,
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
