// FOLLOWUP_WEBHOOK_SECRET=whsec_… PORT=8080 npm start -w @followup/example-subscriber-fastify
import { buildSubscriber } from './subscriber.js';

const secret = process.env.FOLLOWUP_WEBHOOK_SECRET;
if (!secret) {
  console.error(
    'Set FOLLOWUP_WEBHOOK_SECRET to the secret `followup-server endpoints add` printed.',
  );
  process.exit(2);
}
const app = buildSubscriber({
  secret: () => secret.split(','),
  onEvent: (event) => console.log(`handled ${event.event} ${event.id}`),
});
const address = await app.listen({ port: Number(process.env.PORT ?? 8080), host: '127.0.0.1' });
console.log(`listening on ${address}/webhooks/followup`);
