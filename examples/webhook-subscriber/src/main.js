// Runs the subscriber: FOLLOWUP_WEBHOOK_SECRET=whsec_… PORT=8080 npm start
// Without a secret it signs and sends itself one delivery, to show the round trip.
import { SIGNATURE_HEADER, signPayload } from '@followup/webhooks';
import { createSubscriber } from './subscriber.js';

const secret = process.env.FOLLOWUP_WEBHOOK_SECRET ?? 'whsec_example_only';
const port = Number(process.env.PORT ?? 0);
const server = createSubscriber({
  secret,
  onEvent: (event) => console.log(`handled ${event.event} ${event.id}:`, event.data),
});

server.listen(port, '127.0.0.1', async () => {
  const { port: actual } = server.address();
  console.log(`listening on http://127.0.0.1:${actual}/webhooks/followup`);
  if (process.env.FOLLOWUP_WEBHOOK_SECRET) return;
  const body = JSON.stringify({
    id: 'dlv_example_1',
    event: 'contact.created',
    createdAt: new Date().toISOString(),
    data: { id: 'con_example_1', firstName: 'Ada', lastName: 'Lovelace' },
  });
  const response = await fetch(`http://127.0.0.1:${actual}/webhooks/followup`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'contact.created',
      'x-service-delivery': 'dlv_example_1',
      [SIGNATURE_HEADER]: signPayload(body, { secret }),
    },
  });
  console.log(`self-test delivery answered ${response.status}`);
  setTimeout(() => server.close(), 50);
});
