import { contactSchema } from '@followup/sdk';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { responseSerializerCompiler } from './response-serializer.js';

interface Captured {
  payload: unknown;
  schema: unknown;
  method: string;
  url: string;
  written?: string;
}

// The contract of the compiled serializer: for every answer of every route family, the bytes
// are exactly those fastify-type-provider-zod's serializer (zod's encode, then JSON.stringify)
// writes from the same payload.
describe('response serializer', () => {
  const captured = new Map<string, Captured>();
  const server = useTestServer({
    inboxWebhookSecret: 'inbox-secret',
    configure(app) {
      app.addHook('preSerialization', async (request, reply, payload) => {
        const schema = (
          request.routeOptions.schema?.response as Record<string, unknown> | undefined
        )?.[String(reply.statusCode)];
        if (schema !== undefined) {
          captured.set(request.id, {
            payload: structuredClone(payload),
            schema,
            method: request.method,
            url: request.url,
          });
        }
        return payload;
      });
      app.addHook('onSend', async (request, _reply, payload) => {
        const entry = captured.get(request.id);
        if (entry && typeof payload === 'string') entry.written = payload;
        return payload;
      });
    },
  });

  it('writes the bytes the zod path writes, for every route family', async () => {
    const admin = await server().tokenFor('ADMIN');
    const headers = { authorization: `Bearer ${admin.token}` };
    const call = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) => {
      const response = await server().app.inject({
        method,
        url,
        headers,
        ...(payload ? { payload } : {}),
      });
      expect(response.statusCode).toBeLessThan(300);
      return response;
    };
    const contact = (
      await call('POST', '/api/contacts', {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
      })
    ).json();
    await call('POST', '/api/contacts', {
      firstName: 'Grace',
      lastName: 'Hopper',
      phone: '+1 555 0100',
    });
    await call('PATCH', `/api/contacts/${contact.id}`, {
      lifecycle: 'PATIENT',
      phone: '+44 20 7946 0000',
    });
    const deal = (
      await call('POST', '/api/deals', {
        contactId: contact.id,
        title: 'Care plan',
        amountCents: 125_000,
        currency: 'EUR',
      })
    ).json();
    const sequence = (
      await call('POST', '/api/sequences', {
        name: 'Welcome',
        steps: [{ action: 'SMS', delayHours: 48 }],
      })
    ).json();
    const campaign = (await call('POST', '/api/campaigns', { name: 'Spring' })).json();
    const user = (
      await call('POST', '/api/users', { email: 'ops@example.com', name: 'Ops', role: 'AGENT' })
    ).json();
    await server().app.inject({
      method: 'POST',
      url: '/api/inbox/webhook',
      headers: { 'x-service-webhook-secret': 'inbox-secret' },
      payload: { from: 'ada@example.com', subject: 'Hello', text: 'Body' },
    });
    for (const url of [
      '/api/contacts',
      '/api/contacts?limit=1',
      `/api/contacts/${contact.id}`,
      '/api/contacts/count',
      '/api/deals',
      `/api/deals/${deal.id}`,
      '/api/sequences',
      `/api/sequences/${sequence.id}`,
      '/api/campaigns',
      `/api/campaigns/${campaign.id}`,
      '/api/users',
      `/api/users/${user.id}`,
      '/api/audit',
      '/api/messages',
      '/api/me',
      '/api/events',
      '/api/event-types',
    ]) {
      await call('GET', url);
    }
    const answered = [...captured.values()];
    expect(answered.length).toBeGreaterThanOrEqual(24);
    for (const { payload, schema, method, url, written } of answered) {
      const expected = zodSerializerCompiler({ schema, method, url } as never)(payload);
      expect(written, `${method} ${url}`).toBe(expected);
    }
  });

  it('writes a valid answer as it is, without zod, and refuses an invalid one as zod does', () => {
    const route = { schema: contactSchema, method: 'GET', url: '/api/contacts/x' } as never;
    const serialize = responseSerializerCompiler(route);
    const contact = {
      id: 'con_1',
      firstName: 'Ada',
      lastName: 'Lovelace',
      lifecycle: 'LEAD',
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
    };
    expect(serialize(contact)).toBe(zodSerializerCompiler(route)(contact));
    // Keys out of the schema's order show which path wrote it: zod would reorder them.
    const { lastName, ...rest } = contact;
    const reordered = { lastName, ...rest };
    expect(serialize(reordered)).toBe(JSON.stringify(reordered));
    expect(() => serialize({ ...contact, firstName: 42 })).toThrow(
      "Response doesn't match the schema",
    );
  });
});
