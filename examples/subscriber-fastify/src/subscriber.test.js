import { checkSubscriber, useExampleServer } from '@followup/example-support';
import { expect, it } from 'vitest';
import { buildSubscriber } from './subscriber.js';

const server = useExampleServer('subscriber-fastify');

it('receives a real delivery from followup-server, once, and refuses forged ones', async () => {
  const result = await checkSubscriber({
    storage: server.storage,
    server,
    start: async (options) => {
      const app = buildSubscriber(options);
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      return { url: `${address}/webhooks/followup`, close: () => app.close() };
    },
  });
  expect(result.event).toMatchObject({ event: 'contact.created', data: { id: result.contact.id } });
  expect(result.repeatStatus).toBe(200);
  expect(result.handledCount()).toBe(1);
  expect(result.forged).toEqual({ status: 400, body: '{"error":"no_matching_signature"}' });
  expect(result.unsigned).toEqual({ status: 400, body: '{"error":"missing_header"}' });
});
