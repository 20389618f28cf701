import { once } from 'node:events';
import { signPayload } from '@followup/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createSubscriber } from './subscriber.js';

const T = 1_700_000_000;
const secret = 'whsec_example_test';
let server;

async function start(options = {}) {
  const events = [];
  server = createSubscriber({
    secret,
    now: () => T,
    onEvent: (event) => events.push(event),
    ...options,
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}/webhooks/followup`, events };
}

afterEach(() => server?.close());

const body = JSON.stringify({
  id: 'dlv_1',
  event: 'contact.created',
  createdAt: '2023-11-14T22:13:20Z',
  data: { id: 'con_1', firstName: 'Ada', lastName: 'Lovelace' },
});

describe('webhook subscriber example', () => {
  it('accepts a signed delivery once, and acknowledges its repeat without handling it again', async () => {
    const { url, events } = await start();
    const headers = { 'x-service-signature': signPayload(body, { secret, timestamp: T }) };
    expect((await fetch(url, { method: 'POST', body, headers })).status).toBe(204);
    expect((await fetch(url, { method: 'POST', body, headers })).status).toBe(200);
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual([JSON.parse(body)]);
  });

  it('refuses a forged, a stale and an unsigned delivery with the reason', async () => {
    const { url, events } = await start();
    const forged = signPayload(body, { secret: 'whsec_attacker', timestamp: T });
    const stale = signPayload(body, { secret, timestamp: T - 3600 });
    for (const [signature, code] of [
      [forged, 'no_matching_signature'],
      [stale, 'timestamp_too_old'],
      [undefined, 'missing_header'],
    ]) {
      const response = await fetch(url, {
        method: 'POST',
        body,
        headers: signature ? { 'x-service-signature': signature } : {},
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({ error: code });
    }
    expect(events).toEqual([]);
  });

  it('refuses a body altered after signing', async () => {
    const { url } = await start();
    const signature = signPayload(body, { secret, timestamp: T });
    const altered = body.replace('Ada', 'Eve');
    const response = await fetch(url, {
      method: 'POST',
      body: altered,
      headers: { 'x-service-signature': signature },
    });
    expect(response.status).toBe(400);
  });
});
