import type { LightMyRequestResponse } from 'fastify';
import type { Role } from '../../src/tokens/role.js';
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
  const cookies = new Map([['followup_session', session.cookieValue]]);
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
    session,
    cookies,
    async get(url) {
      return keep(await server.app.inject({ method: 'GET', url, headers: { cookie: header() } }));
    },
    async post(url, fields = {}) {
      const form = new URLSearchParams();
      form.append('_csrf', session.csrfToken);
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
