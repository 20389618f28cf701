import { describe, expect, it } from 'vitest';
import { useTestServer } from '../test/support/server.js';
import { type Capability, capabilities, hasCapability } from './capabilities.js';
import { roles } from './tokens/role.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

let newUsers = 0;

interface Fixture {
  contactId: string;
  dealId: string;
  sequenceId: string;
  campaignId: string;
  userId: string;
  /** A delivery id no delivery has: an allowed caller gets past the capability to the 404. */
  deliveryId: string;
  endpointId: string;
  /** A replay id no replay has: an allowed caller gets past the capability to the 404. */
  replayId: string;
  eventId: string;
}

// Every route of the API that needs a capability (the Routes table of docs/api-contract.md), with
// the status it answers when allowed. Each new route adds its row here, and the walk below covers
// it for every role. Ids come from records an ADMIN creates before each role's walk.
const routes: {
  method: Method;
  url: string | ((fixture: Fixture) => string);
  body?: (fixture: Fixture) => Record<string, unknown>;
  capability: Capability;
  success: number;
}[] = [
  { method: 'GET', url: '/api/contacts', capability: 'contacts.read', success: 200 },
  { method: 'GET', url: '/api/contacts/count', capability: 'contacts.read', success: 200 },
  {
    method: 'GET',
    url: (f) => `/api/contacts/${f.contactId}`,
    capability: 'contacts.read',
    success: 200,
  },
  {
    method: 'POST',
    url: '/api/contacts',
    body: () => ({ firstName: 'Ada', lastName: 'Lovelace' }),
    capability: 'contacts.write',
    success: 201,
  },
  {
    method: 'PATCH',
    url: (f) => `/api/contacts/${f.contactId}`,
    body: () => ({ lifecycle: 'PATIENT' }),
    capability: 'contacts.write',
    success: 200,
  },
  {
    method: 'DELETE',
    url: (f) => `/api/contacts/${f.contactId}`,
    capability: 'contacts.delete',
    success: 204,
  },
  {
    method: 'POST',
    url: (f) => `/api/contacts/${f.contactId}/erase`,
    capability: 'contacts.delete',
    success: 200,
  },
  { method: 'GET', url: '/api/deals', capability: 'deals.read', success: 200 },
  { method: 'GET', url: '/api/deals/count', capability: 'deals.read', success: 200 },
  { method: 'GET', url: (f) => `/api/deals/${f.dealId}`, capability: 'deals.read', success: 200 },
  {
    method: 'POST',
    url: '/api/deals',
    body: (f) => ({ contactId: f.contactId, title: 'T', amountCents: 1, currency: 'USD' }),
    capability: 'deals.write',
    success: 201,
  },
  {
    method: 'PATCH',
    url: (f) => `/api/deals/${f.dealId}`,
    body: () => ({ stage: 'WON' }),
    capability: 'deals.write',
    success: 200,
  },
  {
    method: 'DELETE',
    url: (f) => `/api/deals/${f.dealId}`,
    capability: 'deals.write',
    success: 204,
  },
  ...(
    [
      ['sequences', 'sequenceId', 'sequences.manage', { name: 'S' }],
      ['campaigns', 'campaignId', 'campaigns.manage', { name: 'C' }],
    ] as const
  ).flatMap(([collection, key, capability, body]) => [
    { method: 'GET' as const, url: `/api/${collection}`, capability, success: 200 },
    {
      method: 'GET' as const,
      url: (f: Fixture) => `/api/${collection}/${f[key]}`,
      capability,
      success: 200,
    },
    {
      method: 'POST' as const,
      url: `/api/${collection}`,
      body: () => body,
      capability,
      success: 201,
    },
    {
      method: 'PATCH' as const,
      url: (f: Fixture) => `/api/${collection}/${f[key]}`,
      body: () => ({ status: 'ARCHIVED' }),
      capability,
      success: 200,
    },
    {
      method: 'DELETE' as const,
      url: (f: Fixture) => `/api/${collection}/${f[key]}`,
      capability,
      success: 204,
    },
  ]),
  { method: 'GET', url: '/api/users', capability: 'users.manage', success: 200 },
  { method: 'GET', url: (f) => `/api/users/${f.userId}`, capability: 'users.manage', success: 200 },
  {
    method: 'POST',
    url: '/api/users',
    body: () => ({
      email: `new-${++newUsers}@example.com`,
      name: 'N',
      role: 'AGENT',
    }),
    capability: 'users.manage',
    success: 201,
  },
  {
    method: 'PATCH',
    url: (f) => `/api/users/${f.userId}`,
    body: () => ({ name: 'Renamed' }),
    capability: 'users.manage',
    success: 200,
  },
  {
    method: 'DELETE',
    url: (f) => `/api/users/${f.userId}`,
    capability: 'users.manage',
    success: 204,
  },
  {
    method: 'POST',
    url: '/api/users/invitations',
    body: () => ({ email: `invited-${++newUsers}@example.com`, role: 'AGENT' }),
    capability: 'users.manage',
    success: 201,
  },
  {
    method: 'POST',
    url: (f) => `/api/users/${f.userId}/disable`,
    capability: 'users.manage',
    success: 200,
  },
  {
    method: 'DELETE',
    url: (f) => `/api/users/${f.userId}/sessions`,
    capability: 'users.manage',
    success: 200,
  },
  { method: 'GET', url: '/api/audit', capability: 'audit.read', success: 200 },
  { method: 'GET', url: '/api/messages', capability: 'contacts.read', success: 200 },
  { method: 'GET', url: '/api/contacts/changes', capability: 'contacts.read', success: 200 },
  {
    method: 'POST',
    url: '/api/contacts/batch',
    body: () => ({ contacts: [{ firstName: 'Ada', lastName: 'Lovelace' }] }),
    capability: 'contacts.write',
    success: 200,
  },
  // Every role may read the feed; which kinds it sees is events.test.ts's subject.
  { method: 'GET', url: '/api/events', capability: 'contacts.read', success: 200 },
  // One event, under the feed's rules; none exists here, so a permitted caller finds nothing.
  {
    method: 'GET',
    url: (f) => `/api/events/${f.eventId}`,
    capability: 'contacts.read',
    success: 404,
  },
  {
    method: 'GET',
    url: (f) => `/api/deliveries/${f.deliveryId}/attempts`,
    capability: 'webhooks.manage',
    success: 404,
  },
  { method: 'GET', url: '/api/deliveries', capability: 'webhooks.manage', success: 200 },
  {
    method: 'GET',
    url: (f) => `/api/deliveries/${f.deliveryId}`,
    capability: 'webhooks.manage',
    success: 404,
  },
  {
    method: 'POST',
    url: (f) => `/api/deliveries/${f.deliveryId}/retry`,
    capability: 'webhooks.manage',
    success: 404,
  },
  { method: 'GET', url: '/api/webhook-endpoints', capability: 'webhooks.manage', success: 200 },
  {
    method: 'POST',
    url: '/api/webhook-endpoints',
    body: () => ({ url: 'https://hooks.example.com/new' }),
    capability: 'webhooks.manage',
    success: 201,
  },
  {
    method: 'GET',
    url: (f) => `/api/webhook-endpoints/${f.endpointId}`,
    capability: 'webhooks.manage',
    success: 200,
  },
  {
    method: 'PATCH',
    url: (f) => `/api/webhook-endpoints/${f.endpointId}`,
    body: () => ({ description: 'renamed' }),
    capability: 'webhooks.manage',
    success: 200,
  },
  {
    method: 'DELETE',
    url: (f) => `/api/webhook-endpoints/${f.endpointId}`,
    capability: 'webhooks.manage',
    success: 204,
  },
  {
    method: 'POST',
    url: (f) => `/api/webhook-endpoints/${f.endpointId}/rotate-secret`,
    body: () => ({}),
    capability: 'webhooks.manage',
    success: 200,
  },
  {
    method: 'POST',
    url: (f) => `/api/webhook-endpoints/${f.endpointId}/test`,
    capability: 'webhooks.manage',
    success: 202,
  },
  {
    method: 'POST',
    url: (f) => `/api/webhook-endpoints/${f.endpointId}/replay`,
    body: () => ({ since: '2026-03-01T08:00:00Z' }),
    capability: 'webhooks.manage',
    success: 202,
  },
  {
    method: 'GET',
    url: (f) => `/api/replays/${f.replayId}`,
    capability: 'webhooks.manage',
    success: 404,
  },
  {
    method: 'POST',
    url: () => '/api/webhook-portal/links',
    body: () => ({ subscriber: 'acme' }),
    capability: 'webhooks.manage',
    success: 201,
  },
];

const server = useTestServer({
  configure(app) {
    // One probe per capability: the hook itself, apart from any route's own logic.
    for (const capability of capabilities) {
      app.get(
        `/test/capability/${capability}`,
        { onRequest: app.requireCapability(capability) },
        async () => ({
          capability,
        }),
      );
    }
  },
});

describe('capability matrix over HTTP', () => {
  it('enforces every capability for every role: allowed or 403 forbidden, never anything else', async () => {
    const tokens = new Map<string, string>();
    for (const role of roles) tokens.set(role, (await server().tokenFor(role)).token);
    const walked: string[] = [];
    for (const role of roles) {
      for (const capability of capabilities) {
        const response = await server().app.inject({
          method: 'GET',
          url: `/test/capability/${capability}`,
          headers: { authorization: `Bearer ${tokens.get(role)}` },
        });
        const expected = hasCapability(role, capability) ? 200 : 403;
        expect(response.statusCode, `${role} ${capability}`).toBe(expected);
        if (expected === 403) expect(response.json()).toMatchObject({ code: 'forbidden' });
        walked.push(`${role} ${capability}`);
      }
    }
    expect(walked).toHaveLength(capabilities.length * roles.length);
  });

  // Hundreds of requests: on a busy machine this takes longer than the default 30 s.
  it('walks every route of every family for every role: its success status or 403', {
    timeout: 120_000,
  }, async () => {
    const { token: admin } = await server().tokenFor('ADMIN');
    async function create(url: string, payload: Record<string, unknown>): Promise<string> {
      const response = await server().app.inject({
        method: 'POST',
        url,
        headers: { authorization: `Bearer ${admin}` },
        payload,
      });
      expect(response.statusCode, url).toBe(201);
      return response.json().id;
    }
    const walked = new Set<string>();
    let count = 0;
    for (const role of roles) {
      const { token } = await server().tokenFor(role);
      for (const route of routes) {
        // A minute per route: the walk stays under the per-token rate limit however long it grows.
        server().clock.advance(60_000);
        // Fresh records for each call, so that a delete or an update always has its target.
        const contactId = await create('/api/contacts', { firstName: 'F', lastName: 'L' });
        const fixture: Fixture = {
          contactId,
          dealId: await create('/api/deals', {
            contactId,
            title: 'D',
            amountCents: 5,
            currency: 'USD',
          }),
          sequenceId: await create('/api/sequences', { name: 'S' }),
          campaignId: await create('/api/campaigns', { name: 'C' }),
          userId: await create('/api/users', {
            email: `u${count}@example.com`,
            name: 'U',
            role: 'AGENT',
          }),
          deliveryId: 'dlv_none',
          replayId: 'rpl_none',
          eventId: 'evt_none',
          endpointId: await create('/api/webhook-endpoints', { url: 'https://hooks.example.com/' }),
        };
        const url = typeof route.url === 'string' ? route.url : route.url(fixture);
        const response = await server().app.inject({
          method: route.method,
          url,
          headers: { authorization: `Bearer ${token}` },
          ...(route.body ? { payload: route.body(fixture) } : {}),
        });
        const expected = hasCapability(role, route.capability) ? route.success : 403;
        expect(response.statusCode, `${role} ${route.method} ${url}`).toBe(expected);
        if (expected === 403) expect(response.json()).toMatchObject({ code: 'forbidden' });
        walked.add(route.capability);
        count++;
      }
    }
    // Every capability is on at least one route, and every route was walked by all four roles.
    expect([...walked].sort()).toEqual([...capabilities].sort());
    expect(count).toBe(routes.length * roles.length);
  });

  it('lists every /api route the server has, so that a new route cannot escape the walk', async () => {
    const document = (await server().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
      )
      .filter((route) => / \/api\//.test(route))
      // The inbound webhooks authenticate with their own secrets, not with a capability.
      .filter((route) => !/ \/api\/(inbox\/webhook|ehr\/webhooks\/)/.test(route))
      // Any authenticated caller may ask who it is; me.test.ts asks it with every role.
      .filter((route) => route !== 'GET /api/me')
      // The event catalogue is public, like /openapi.json.
      .filter((route) => route !== 'GET /api/event-types');
    const walked = routes.map((route) => {
      const url =
        typeof route.url === 'string'
          ? route.url
          : route.url({
              contactId: '{id}',
              dealId: '{id}',
              sequenceId: '{id}',
              campaignId: '{id}',
              userId: '{id}',
              deliveryId: '{id}',
              endpointId: '{id}',
              replayId: '{id}',
              eventId: '{eventId}',
            });
      return `${route.method} ${url}`;
    });
    expect([...new Set(walked)].sort()).toEqual(documented.sort());
  });
});
