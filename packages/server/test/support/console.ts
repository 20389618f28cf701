import type { LightMyRequestResponse } from 'fastify';
import type { Role } from '../../src/tokens/role.js';
import { cookieBrowser } from './cookie-browser.js';
import type { TestServer } from './server.js';
import { type WebSession, webSessionFor } from './web.js';

/** A signed-in browser for `app.inject`: it keeps the cookies it is sent (session, flash). */
export interface ConsoleBrowser {
  session: WebSession;
  get(url: string): Promise<LightMyRequestResponse>;
  /** Posts a form with the session's CSRF token and a same-origin `Origin`. */
  post(url: string, fields?: Record<string, string | string[]>): Promise<LightMyRequestResponse>;
  /** The cookies the browser holds now, by name. */
  cookies: Map<string, string>;
}

/** Signs a new user of `role` in and returns their browser. */
export async function consoleBrowser(
  server: TestServer,
  role: Role,
  options: { email?: string; name?: string } = {},
): Promise<ConsoleBrowser> {
  const session = await webSessionFor(server, role, options);
  const browser = cookieBrowser(server, { cookies: { followup_session: session.cookieValue } });
  return {
    session,
    cookies: browser.cookies,
    get: browser.get,
    post: (url, fields = {}) => browser.post(url, { _csrf: session.csrfToken, ...fields }),
  };
}
