import { createHmac } from 'node:crypto';
import { signPayload } from '@followup/webhooks';
import { describe, expect, it } from 'vitest';
import {
  type ContactCreatedEvent,
  FollowUp,
  isKnownWebhookEvent,
  ResponseValidationError,
  WebhookVerificationError,
} from '../src/index.js';
import { TOKEN } from './fixture-server.js';

const SECRET = 'whsec_sdk_test_secret';
const client = new FollowUp({ token: TOKEN, baseUrl: 'http://127.0.0.1:9' });
const event = {
  id: 'dlv_01JTEST',
  event: 'contact.created',
  createdAt: '2026-11-22T02:00:00Z',
  data: { id: 'con_1', firstName: 'Ada', lastName: 'Lovelace', lifecycle: 'LEAD', extra: 1 },
};
const body = JSON.stringify(event);

function headersFor(payload: string, extra: Record<string, string> = {}) {
  return {
    'content-type': 'application/json',
    'x-service-signature': signPayload(payload, { secret: SECRET }),
    'x-service-event': 'contact.created',
    'x-service-delivery': 'dlv_01JTEST',
    ...extra,
  };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('client.webhooks.unwrap', () => {
  it('verifies and returns the typed event, from a string, bytes, a record or Headers', async () => {
    const headers = headersFor(body);
    const fromString = await client.webhooks.unwrap(body, headers, SECRET);
    if (fromString.event !== 'contact.created') throw new Error('not narrowed');
    const typed: ContactCreatedEvent = fromString;
    expect(typed.data.firstName).toBe('Ada');
    expect(fromString).toEqual(event);
    const bytes = new TextEncoder().encode(body);
    expect(await client.webhooks.unwrap(bytes, new Headers(headers), { secret: SECRET })).toEqual(
      event,
    );
    expect(
      await client.webhooks.unwrap(bytes.buffer, headers, { secret: ['whsec_new', SECRET] }),
    ).toEqual(event);
  });

  it('accepts a delivery without the unsigned headers', async () => {
    const headers = { 'X-Service-Signature': signPayload(body, { secret: SECRET }) };
    expect((await client.webhooks.unwrap(body, headers, SECRET)).id).toBe('dlv_01JTEST');
  });

  it('refuses a wrong secret, a changed body and an old timestamp', async () => {
    const headers = headersFor(body);
    const wrong = await failure(client.webhooks.unwrap(body, headers, 'whsec_other'));
    expect(WebhookVerificationError.isInstance(wrong)).toBe(true);
    expect((wrong as WebhookVerificationError).code).toBe('no_matching_signature');

    const tampered = body.replace('Ada', 'Eve');
    const changed = await failure(client.webhooks.unwrap(tampered, headers, SECRET));
    expect(WebhookVerificationError.isInstance(changed)).toBe(true);

    const old = {
      ...headers,
      'x-service-signature': signPayload(body, { secret: SECRET, timestamp: 1_700_000_000 }),
    };
    const stale = await failure(client.webhooks.unwrap(body, old, SECRET));
    expect((stale as WebhookVerificationError).code).toBe('timestamp_too_old');
    const missing = await failure(client.webhooks.unwrap(body, {}, SECRET));
    expect((missing as WebhookVerificationError).code).toBe('missing_header');
  });

  it('refuses X-Service-Event or X-Service-Delivery headers that disagree with the body', async () => {
    for (const extra of [
      { 'x-service-event': 'contact.deleted' },
      { 'x-service-delivery': 'dlv_OTHER' },
      { 'X-Service-Delivery': ['dlv_01JTEST', 'dlv_OTHER'] as unknown as string },
    ]) {
      const error = await failure(client.webhooks.unwrap(body, headersFor(body, extra), SECRET));
      expect(ResponseValidationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain('disagrees with the signed body');
    }
  });

  it('passes an event of a kind it does not know as a generic event', async () => {
    const later = { ...event, event: 'contact.merged', data: { id: 'con_1', into: 'con_2' } };
    const payload = JSON.stringify(later);
    const unwrapped = await client.webhooks.unwrap(
      payload,
      headersFor(payload, { 'x-service-event': 'contact.merged' }),
      SECRET,
    );
    expect(unwrapped).toEqual(later);
    expect(isKnownWebhookEvent(unwrapped)).toBe(false);
  });

  it('types and checks every known kind, previousAttributes included', async () => {
    const deal = {
      id: 'deal_1',
      contactId: 'con_1',
      title: 'Renewal',
      stage: 'WON',
      amountCents: 1000,
      currency: 'EUR',
      createdAt: '2026-11-22T02:00:00Z',
      updatedAt: '2026-11-22T03:00:00Z',
    };
    const updated = {
      id: 'dlv_2',
      eventId: 'evt_2',
      event: 'deal.updated',
      createdAt: '2026-11-22T03:00:00Z',
      data: deal,
      previousAttributes: { stage: 'OPEN' },
    };
    const payload = JSON.stringify(updated);
    const unwrapped = await client.webhooks.unwrap(
      payload,
      headersFor(payload, { 'x-service-event': 'deal.updated', 'x-service-delivery': 'dlv_2' }),
      SECRET,
    );
    if (unwrapped.event !== 'deal.updated') throw new Error('not narrowed');
    expect(unwrapped.previousAttributes.stage).toBe('OPEN');
    const withoutPrevious = JSON.stringify({ ...updated, previousAttributes: undefined });
    const error = await failure(
      client.webhooks.unwrap(
        withoutPrevious,
        headersFor(withoutPrevious, {
          'x-service-event': 'deal.updated',
          'x-service-delivery': 'dlv_2',
        }),
        SECRET,
      ),
    );
    expect(ResponseValidationError.isInstance(error)).toBe(true);
  });

  it('refuses a verified body that is not JSON or breaks its schema', async () => {
    for (const [payload, expected] of [
      ['not json', 'not JSON'],
      [JSON.stringify({ ...event, data: { id: 'con_1' } }), 'does not match'],
      [JSON.stringify({ ...event, event: 'deal.won', data: 'x' }), 'does not match'],
    ] as const) {
      const headers = headersFor(payload, { 'x-service-event': 'x' });
      const error = await failure(client.webhooks.unwrap(payload, headers, SECRET));
      expect(ResponseValidationError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(expected);
    }
  });

  it('verifies the Standard Webhooks headers of a request without X-Service-Signature', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const timestamp = Math.floor(Date.now() / 1000);
    const sign = (id: string, payload: string) =>
      `v1,${createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
        .update(`${id}.${timestamp}.${payload}`)
        .digest('base64')}`;
    const headers = (id: string) => ({
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': sign(id, body),
    });
    expect(await client.webhooks.unwrap(body, headers('dlv_01JTEST'), secret)).toEqual(event);
    // The signed webhook-id must be the body's id.
    const other = await failure(client.webhooks.unwrap(body, headers('dlv_OTHER'), secret));
    expect(ResponseValidationError.isInstance(other)).toBe(true);
    expect((other as Error).message).toContain('webhook-id');
    // The key is the base64 after whsec_, not the whole string.
    const wrongKey = {
      ...headers('dlv_01JTEST'),
      'webhook-signature': `v1,${createHmac('sha256', secret).update(`dlv_01JTEST.${timestamp}.${body}`).digest('base64')}`,
    };
    const refused = await failure(client.webhooks.unwrap(body, wrongKey, secret));
    expect((refused as WebhookVerificationError).code).toBe('no_matching_signature');
  });

  it('never puts the secret or the signature in an error', async () => {
    const headers = headersFor(body);
    const error = (await failure(client.webhooks.unwrap(`${body} `, headers, SECRET))) as Error;
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain(headers['x-service-signature'].slice(15));
  });
});
