// Run by test/runtimes.test.ts under Deno and Bun: the built SDK against a small API served by
// the test (its URL in argv), and its webhook handler, printed as one JSON line.
import { signPayload } from '@followup/webhooks/web';
import { FollowUp, NotFoundError } from '../dist/index.js';

const baseUrl = globalThis.Deno ? globalThis.Deno.args[0] : globalThis.process.argv[2];
const client = new FollowUp({
  token: 'hns_sa_runtime.c2VjcmV0LXNlY3JldC1zZWNyZXQ',
  baseUrl,
  maxRetries: 0,
});
const ids = [];
for await (const contact of client.contacts.list({ limit: 2 })) ids.push(contact.id);
const missing = await client.contacts.get('con_missing').catch((error) => error);
// client.webhooks.handler on this runtime's Request and Response: a delivery, again, a forgery.
const handled = [];
const handler = client.webhooks.handler({
  secret: 'whsec_runtime',
  on: { 'contact.created': (event) => void handled.push(event.data.firstName) },
});
const delivery = JSON.stringify({
  id: 'dlv_runtime',
  event: 'contact.created',
  createdAt: '2026-01-01T00:00:00Z',
  data: { id: 'con_a', firstName: 'Ada', lastName: 'Lovelace' },
});
const signature = await signPayload(delivery, { secret: 'whsec_runtime' });
const handlerStatuses = [];
for (const payload of [delivery, delivery, delivery.replace('Ada', 'Eve')]) {
  const request = new Request('https://subscriber.invalid/webhooks', {
    method: 'POST',
    body: payload,
    headers: { 'x-service-signature': signature },
  });
  handlerStatuses.push((await handler(request)).status);
}
console.log(
  JSON.stringify({
    ids,
    notFound: NotFoundError.isInstance(missing),
    code: missing.code,
    inspect: JSON.stringify(client).includes('c2VjcmV0'),
    handlerStatuses,
    handled,
  }),
);
