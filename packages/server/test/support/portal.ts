import type { LightMyRequestResponse } from 'fastify';
import { createIdGenerator } from '../../src/ids.js';
import { createPortalLink } from '../../src/portal/portal-links.js';
import { cookieBrowser } from './cookie-browser.js';
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
