import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../test/support/console.js';
import { useTestServer } from '../../test/support/server.js';
import { wantsConsolePage } from './console-fallback.js';

const browserAccept = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('wantsConsolePage', () => {
  it('never answers a page under /api, whatever Accept says', () => {
    fc.assert(
      fc.property(fc.webPath(), fc.string(), (tail, accept) => {
        expect(wantsConsolePage(`/api${tail.startsWith('/') ? tail : `/${tail}`}`, accept)).toBe(
          false,
        );
        expect(wantsConsolePage('/api', accept)).toBe(false);
      }),
    );
  });

  it('answers a page elsewhere exactly when Accept names text/html or XHTML', () => {
    expect(wantsConsolePage('/userz', browserAccept)).toBe(true);
    expect(wantsConsolePage('/userz', 'application/xhtml+xml')).toBe(true);
    expect(wantsConsolePage('/apis', 'TEXT/HTML; q=0.5')).toBe(true);
    for (const accept of [undefined, '', '*/*', 'application/json', 'text/htmlx', 'text/*']) {
      expect(wantsConsolePage('/userz', accept), String(accept)).toBe(false);
    }
    fc.assert(
      fc.property(fc.webPath(), fc.string(), (path, accept) => {
        const named = /(^|,)\s*(text\/html|application\/xhtml\+xml)\s*(;|,|$)/i.test(accept);
        const apiPath = path === '/api' || path.startsWith('/api/');
        expect(wantsConsolePage(path, accept)).toBe(named && !apiPath);
      }),
    );
  });
});

describe('the console fallback pages', () => {
  const server = useTestServer();

  it('answers a mistyped console URL from a browser with the 404 page, in the layout, with a way home', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const response = await server().app.inject({
      method: 'GET',
      url: '/service-acounts?x=<b>',
      headers: { accept: browserAccept, cookie: `followup_session=${browser.session.cookieValue}` },
    });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toContain('<h1>Page not found</h1>');
    expect(response.body).toContain('<code>/service-acounts</code>');
    expect(response.body).toContain('<a href="/">Go to the start page</a>');
    // Signed in: the navigation and Sign out of the layout.
    expect(response.body).toContain('<nav class="site-nav" aria-label="Main">');
    expect(response.body).toContain('Sign out');
  });

  it('sends the same security headers as the console pages', async () => {
    const page = await server().app.inject({ method: 'GET', url: '/signin' });
    const missing = await server().app.inject({
      method: 'GET',
      url: '/nowhere',
      headers: { accept: browserAccept },
    });
    expect(missing.statusCode).toBe(404);
    for (const name of [
      'content-security-policy',
      'referrer-policy',
      'x-content-type-options',
      'x-frame-options',
      'cross-origin-opener-policy',
    ]) {
      expect(missing.headers[name], name).toBe(page.headers[name]);
      expect(missing.headers[name], name).toBeDefined();
    }
  });

  it('answers a console path of another method with the 405 page and Allow', async () => {
    const browser = await consoleBrowser(server(), 'ADMIN');
    const cookie = `followup_session=${browser.session.cookieValue}`;
    const signOut = await server().app.inject({
      method: 'GET',
      url: '/signout',
      headers: { accept: browserAccept, cookie },
    });
    expect(signOut.statusCode).toBe(405);
    expect(signOut.headers.allow).toBe('POST');
    expect(signOut.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(signOut.body).toContain('<h1>This page cannot be used that way</h1>');
    expect(signOut.body).toContain('<a href="/">Go to the start page</a>');
    // A path with a parameter: the route's pattern matches it.
    const list = await server().app.inject({
      method: 'DELETE',
      url: '/users',
      headers: { accept: browserAccept, cookie, origin: 'http://localhost:80' },
    });
    expect(list.statusCode).toBe(405);
    expect(list.headers.allow).toBe('GET, HEAD');
  });

  it('keeps problem+json under /api and for clients that do not ask for HTML', async () => {
    for (const [url, accept] of [
      ['/api/contactz', browserAccept],
      ['/api', browserAccept],
      ['/service-acounts', 'application/json'],
      ['/service-acounts', '*/*'],
    ] as const) {
      const response = await server().app.inject({ method: 'GET', url, headers: { accept } });
      expect(response.statusCode, url).toBe(404);
      expect(response.headers['content-type'], url).toBe('application/problem+json; charset=utf-8');
      expect(response.json(), url).toMatchObject({ code: 'not_found' });
    }
  });

  it('redirects /favicon.ico to the SVG icon the pages link to', async () => {
    const icon = await server().app.inject({ method: 'GET', url: '/favicon.ico' });
    expect(icon.statusCode).toBe(302);
    const location = String(icon.headers.location);
    expect(location).toMatch(/^\/assets\/icon\.[0-9a-f]{12}\.svg$/);
    const page = await server().app.inject({ method: 'GET', url: '/signin' });
    expect(page.body).toContain(`<link rel="icon" href="${location}" type="image/svg+xml">`);
    const svg = await server().app.inject({ method: 'GET', url: location });
    expect(svg.statusCode).toBe(200);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.body).toContain('<svg');
  });
});
