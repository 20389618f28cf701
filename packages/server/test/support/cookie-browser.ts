import type { LightMyRequestResponse } from 'fastify';
import type { TestServer } from './server.js';

/**
 * A browser for `app.inject`, for the console and the portal alike: it sends the cookies it
 * holds and keeps those it is sent (a session, a rotated session id, a flash), forgetting one
 * that is cleared.
 */
export interface CookieBrowser {
  /** The cookies the browser holds now, by name. */
  cookies: Map<string, string>;
  get(url: string): Promise<LightMyRequestResponse>;
  /** Posts a form (each field once, or once per value of a list) with a same-origin `Origin`. */
  post(url: string, fields?: Record<string, string | string[]>): Promise<LightMyRequestResponse>;
}

/** A browser holding `cookies` (none unless given), that keeps those it is sent. */
export function cookieBrowser(
  server: TestServer,
  options: { cookies?: Record<string, string> } = {},
): CookieBrowser {
  const cookies = new Map(Object.entries(options.cookies ?? {}));
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
    async get(url) {
      return keep(await server.app.inject({ method: 'GET', url, headers: { cookie: header() } }));
    },
    async post(url, fields = {}) {
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
