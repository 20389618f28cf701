import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';

describe('API reference', () => {
  const server = useTestServer();

  it('serves GET /openapi.json, generated from the route schemas, without a token', async () => {
    const response = await server().app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/audit',
      '/api/campaigns',
      '/api/campaigns/{id}',
      '/api/contacts',
      '/api/contacts/batch',
      '/api/contacts/changes',
      '/api/contacts/count',
      '/api/contacts/{id}',
      '/api/contacts/{id}/erase',
      '/api/deals',
      '/api/deals/count',
      '/api/deals/{id}',
      '/api/deliveries',
      '/api/deliveries/{id}',
      '/api/deliveries/{id}/attempts',
      '/api/deliveries/{id}/retry',
      '/api/ehr/webhooks/{ehr}',
      '/api/event-types',
      '/api/events',
      '/api/events/{eventId}',
      '/api/inbox/webhook',
      '/api/me',
      '/api/messages',
      '/api/replays/{id}',
      '/api/sequences',
      '/api/sequences/{id}',
      '/api/users',
      '/api/users/invitations',
      '/api/users/{id}',
      '/api/users/{id}/disable',
      '/api/users/{id}/sessions',
      '/api/webhook-endpoints',
      '/api/webhook-endpoints/{id}',
      '/api/webhook-endpoints/{id}/replay',
      '/api/webhook-endpoints/{id}/rotate-secret',
      '/api/webhook-endpoints/{id}/test',
      '/api/webhook-portal/links',
      '/healthz',
      '/livez',
      '/readyz',
    ]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    const audit = document.paths['/api/audit'].get;
    expect(audit.security).toEqual([{ bearerAuth: [] }, { cookieAuth: [] }]);
    expect(document.components.securitySchemes.cookieAuth).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'followup_session',
    });
    expect(document.components.securitySchemes.cookieAuth.description).toContain(
      'not a stable contract',
    );
    expect(document.components.securitySchemes.csrfToken).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'X-CSRF-Token',
    });
    expect(audit.parameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual([
      'cursor',
      'limit',
    ]);
    expect(Object.keys(audit.responses).sort()).toEqual(['200', '400', '401', '403', '429']);
    const inbox = document.paths['/api/inbox/webhook'].post;
    const body = inbox.requestBody.content['application/json'].schema;
    expect(body.required.sort()).toEqual(['from', 'subject']);
    expect(Object.keys(body.properties).sort()).toEqual(['from', 'subject', 'text']);
  });

  it('serves a browsable reference at GET /docs', async () => {
    const page = await server().app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body.toLowerCase()).toContain('swagger');
  });

  it("shows FollowUp's name, logo and icon on /docs, not Fastify's or Swagger UI's", async () => {
    const page = await server().app.inject({ method: 'GET', url: '/docs' });
    expect(page.body).toContain('<title>FollowUp API reference</title>');
    expect(page.body).toContain('href="/docs/static/theme/favicon.svg"');
    const initializer = await server().app.inject({
      method: 'GET',
      url: '/docs/static/swagger-initializer.js',
    });
    const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body)?.[1];
    const svg = Buffer.from(logo ?? '', 'base64').toString('utf8');
    expect(svg).toContain('>FollowUp</text>');
    expect(svg).not.toMatch(/fastify|illustrator/i);
    const icon = await server().app.inject({
      method: 'GET',
      url: '/docs/static/theme/favicon.svg',
    });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toBe('image/svg+xml');
  });

  // Like the console's pages: no other site frames it (clickjacking), no script but its own.
  it('serves /docs and its assets with a strict CSP and frame-ancestors none', async () => {
    for (const url of ['/docs', '/docs/', '/docs/static/swagger-initializer.js', '/docs/json']) {
      const answer = await server().app.inject({ method: 'GET', url });
      expect(answer.statusCode, url).toBeLessThan(400);
      const csp = String(answer.headers['content-security-policy'] ?? '');
      const directives = Object.fromEntries(
        csp
          .split(';')
          .map((directive) => directive.trim().split(/\s+/))
          .filter((parts) => parts[0])
          .map(([name, ...values]) => [name, values.join(' ')]),
      );
      expect(directives['frame-ancestors'], url).toBe("'none'");
      expect(directives['default-src'], url).toBe("'none'");
      expect(directives['script-src'], url).toBe("'self'");
      expect(directives['style-src'], url).toMatch(/^'self'( 'sha256-[A-Za-z0-9+/]{43}=')*$/);
      expect(csp, url).not.toContain('unsafe-inline');
      expect(csp, url).not.toContain('unsafe-eval');
    }
  });

  it('names no server from Host or X-Forwarded-Host without a public URL', async () => {
    for (const headers of [
      { host: 'rebind.attacker.example' },
      { host: 'followup.internal:3000', 'x-forwarded-host': 'evil.example' },
    ]) {
      const answer = await server().app.inject({ method: 'GET', url: '/openapi.json', headers });
      expect(answer.json().servers).toEqual([{ url: '/' }]);
      expect(answer.headers.vary ?? '').not.toContain('host');
    }
  });
});

describe('API reference with a public URL', () => {
  const server = useTestServer({
    publicUrl: 'https://followup.example.org/',
    trustProxy: '127.0.0.1',
  });

  it('names the public URL as its one server, whatever the proxy forwards', async () => {
    for (const headers of [
      { host: 'followup.example.org' },
      { host: 'followup.example.org', 'x-forwarded-proto': 'http' },
      { host: '10.0.3.7:3000', 'x-forwarded-host': 'followup.example.org:443' },
    ]) {
      const answer = await server().app.inject({ method: 'GET', url: '/openapi.json', headers });
      expect(answer.statusCode).toBe(200);
      expect(answer.json().servers).toEqual([{ url: 'https://followup.example.org' }]);
    }
    const docs = await server().app.inject({
      method: 'GET',
      url: '/docs/json',
      headers: { host: 'followup.example.org' },
    });
    expect(docs.json().servers).toEqual([{ url: 'https://followup.example.org' }]);
  });
});
