import { describe, expect, it } from 'vitest';
import { useTestServer } from '../test/support/server.js';
import { type Capability, capabilities, hasCapability } from './capabilities.js';
import { roles } from './tokens/account-store.js';

// Every route of the API that needs a capability, with the status it answers when allowed.
// Each new route adds its row here, and the walk below covers it for every role.
const routes: { method: 'GET' | 'POST'; url: string; capability: Capability; success: number }[] = [
  { method: 'GET', url: '/api/audit', capability: 'audit.read', success: 200 },
  { method: 'GET', url: '/api/messages', capability: 'contacts.read', success: 200 },
];

const server = useTestServer({
  configure(app) {
    // One probe per capability, so that all nine are enforced over HTTP even before every
    // capability has a route of its own.
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
    expect(walked).toHaveLength(36);
  });

  it.each(routes)('$method $url requires $capability, for every role', async (route) => {
    for (const role of roles) {
      const { token } = await server().tokenFor(role);
      const response = await server().app.inject({
        method: route.method,
        url: route.url,
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.statusCode, role).toBe(
        hasCapability(role, route.capability) ? route.success : 403,
      );
    }
  });
});
