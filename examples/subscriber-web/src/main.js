// FOLLOWUP_WEBHOOK_SECRET=whsec_… PORT=8080 npm start -w @followup/example-subscriber-web
import { createHandler } from './handler.js';
import { serveOnNode } from './serve-node.js';

const secret = process.env.FOLLOWUP_WEBHOOK_SECRET;
if (!secret) {
  console.error(
    'Set FOLLOWUP_WEBHOOK_SECRET to the secret `followup-server endpoints add` printed.',
  );
  process.exit(2);
}
const handler = createHandler({
  secret: () => secret.split(','),
  onEvent: (event) => console.log(`handled ${event.event} ${event.id}`),
});
const server = serveOnNode(handler).listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks/followup`);
});
