// The Cloudflare Workers check of test/workers.test.ts: bundled with esbuild as a Worker would
// be, then run by workerd (the Workers runtime, without Node compatibility). It drives the SDK
// through an in-Worker fetch, the Web Crypto webhooks entry and client.webhooks.handler, and
// answers with what it saw.
import { signPayload, verifySignature } from '@followup/webhooks/web';
import { FollowUp, NotFoundError } from '../dist/index.js';

const contacts = ['a', 'b', 'c'].map((letter) => ({
  id: `con_${letter}`,
  firstName: 'Ada',
  lastName: 'Lovelace',
  lifecycle: 'LEAD',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
}));

async function api(input, init) {
  const request = new Request(input, init);
  const url = new URL(request.url);
  if (request.headers.get('authorization') !== 'Bearer hns_sa_worker.c2VjcmV0LXdvcmtlcg') {
    return Response.json({ status: 401, code: 'token_invalid' }, { status: 401 });
  }
  if (url.pathname === '/api/contacts') {
    const offset = Number(url.searchParams.get('offset') ?? 0);
    const limit = Number(url.searchParams.get('limit') ?? 50);
    return Response.json({ contacts: contacts.slice(offset, offset + limit) });
  }
  return new Response(JSON.stringify({ status: 404, title: 'Not Found', code: 'not_found' }), {
    status: 404,
    headers: { 'content-type': 'application/problem+json' },
  });
}

export default {
  async fetch() {
    const client = new FollowUp({
      token: 'hns_sa_worker.c2VjcmV0LXdvcmtlcg',
      baseUrl: 'https://followup.invalid',
      fetch: api,
      maxRetries: 0,
    });
    const ids = [];
    for await (const contact of client.contacts.list({ limit: 2 })) ids.push(contact.id);
    const missing = await client.contacts.get('con_missing').catch((error) => error);
    const body = '{"id":"dlv_1","event":"contact.created"}';
    const header = await signPayload(body, { secret: 'whsec_worker', timestamp: 1_700_000_000 });
    const verified = await verifySignature(body, header, {
      secret: 'whsec_worker',
      now: 1_700_000_000,
    });
    // client.webhooks.handler as a Worker would use it: a delivery, the same one again, a forgery.
    const handled = [];
    const handler = client.webhooks.handler({
      secret: 'whsec_worker',
      on: { 'contact.created': (event) => void handled.push(event.data.firstName) },
    });
    const delivery = JSON.stringify({
      id: 'dlv_worker',
      event: 'contact.created',
      createdAt: '2026-01-01T00:00:00Z',
      data: contacts[0],
    });
    const signature = await signPayload(delivery, { secret: 'whsec_worker' });
    const send = (payload) =>
      handler(
        new Request('https://subscriber.invalid/webhooks', {
          method: 'POST',
          body: payload,
          headers: { 'x-service-signature': signature },
        }),
      ).then((response) => response.status);
    const handlerStatuses = [
      await send(delivery),
      await send(delivery),
      await send(delivery.replace('Ada', 'Eve')),
    ];
    return Response.json({
      ids,
      notFound: NotFoundError.isInstance(missing),
      verified,
      handlerStatuses,
      handled,
      hasProcess: typeof globalThis.process !== 'undefined',
    });
  },
};
