import type { LightMyRequestResponse } from 'fastify';
import { createIdGenerator } from '../../src/ids.js';
import { createPortalLink } from '../../src/portal/portal-links.js';
import type { TestServer } from './server.js';

/** A browser in the subscriber portal, for `app.inject`: it keeps the cookies it is sent. */
export interface PortalBrowser {
  subscriber: string;
  /** A CSRF token of the portal session, from a page's `<meta name="csrf-token">`. */
  csrfToken: string;
  cookies: Map<string, string>;
  get(url: string): Promise<LightMyRequestResponse>;
  /** Posts a form with the session's CSRF token (unless `_csrf` is given) and a same-origin `Origin`. */
  post(url: string, fields?: Record<string, string | string[]>): Promise<LightMyRequestResponse>;
}

/** A browser with no cookies yet, that keeps those it is sent. */
export function cookieBrowser(server: TestServer) {
  const cookies = new Map<string, string>();
  const header = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  const keep = (response: LightMyRequestResponse) => {
    const raw = response.headers['set-cookie'];
    for (const line of Array.isArray(raw) ? raw : raw ? [raw] : []) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
    return response;
  };
  return {
    cookies,
    async get(url: string) {
      return keep(await server.app.inject({ method: 'GET', url, headers: { cookie: header() } }));
    },
    async post(url: string, fields: Record<string, string | string[]> = {}) {
      const form = new URLSearchParams();
      for (const [name, value] of Object.entries(fields)) {
        for (const item of Array.isArray(value) ? value : [value]) form.append(name, item);
      }
      return keep(
        await server.app.inject({
          method: 'POST',
          url,
          payload: form.toString(),
          headers: {
            cookie: header(),
            origin: 'http://localhost:80',
            'content-type': 'application/x-www-form-urlencoded',
          },
        }),
      );
    },
  };
}

/** The path of a portal link's URL (`/portal/link/<token>`). */
export function portalLinkPath(url: string): string {
  return new URL(url).pathname;
}

/** Makes a portal link for `subscriber`, opens it and confirms: a browser in its portal session. */
export async function portalBrowser(
  server: TestServer,
  subscriber: string,
): Promise<PortalBrowser> {
  const { database, clock } = server;
  const link = await createPortalLink(database, {
    subscriber,
    publicUrl: 'http://localhost:80',
    actor: { type: 'operator' },
    clock,
    newId: createIdGenerator({ now: () => clock.now() }),
  });
  const browser = cookieBrowser(server);
  const started = await browser.post(portalLinkPath(link.url));
  if (started.statusCode !== 303)
    throw new Error(`The portal link answered ${started.statusCode}.`);
  const page = await browser.get('/portal/endpoints');
  const csrfToken = /<meta name="csrf-token" content="([^"]+)">/.exec(page.body)?.[1];
  if (!csrfToken) throw new Error(`No CSRF token on the portal page (status ${page.statusCode}).`);
  return {
    subscriber,
    csrfToken,
    cookies: browser.cookies,
    get: browser.get,
    post: (url, fields = {}) => browser.post(url, { _csrf: csrfToken, ...fields }),
  };
}
