import type { FastifyInstance } from 'fastify';
import { createIdGenerator } from '../../src/ids.js';
import type { Database } from '../../src/storage/database.js';
import type { Role } from '../../src/tokens/role.js';
import { createSessionStore } from '../../src/users/sessions.js';
import type { ManualClock } from './clock.js';
import { testPasswordHash } from './password-hash.js';

/** A signed-in browser, for `app.inject`: its cookie header and a CSRF token of its session. */
export interface WebSession {
  userId: string;
  email: string;
  password: string;
  /** `followup_session=…`, for the `cookie` header. */
  cookie: string;
  /** The session cookie's value alone. */
  cookieValue: string;
  /** A CSRF token of the session, read from a page's `<meta name="csrf-token">`. */
  csrfToken: string;
}

let counter = 0;

/** The password every test user gets. */
export const TEST_PASSWORD = 'correct horse battery staple';

/**
 * Creates a user with this role and a password, and a session for them, as sign-in would; then
 * reads a CSRF token from the start page.
 */
export async function webSessionFor(
  server: { app: FastifyInstance; database: Database; clock: ManualClock },
  role: Role,
  options: { email?: string; name?: string; host?: string } = {},
): Promise<WebSession> {
  const { database, clock, app } = server;
  const newId = createIdGenerator({ now: () => clock.now() });
  counter += 1;
  const userId = newId('usr');
  const email = options.email ?? `person-${counter}-${role.toLowerCase()}@example.com`;
  await database.query(
    `INSERT INTO users (id, email, name, role, created_at, password_hash)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      userId,
      email,
      options.name ?? `Test ${role}`,
      role,
      new Date(clock.now()),
      await testPasswordHash(TEST_PASSWORD),
    ],
  );
  const started = await createSessionStore({ database, clock, newId }).start(database, userId);
  const cookie = `followup_session=${started.cookieValue}`;
  const csrfToken = await csrfTokenOf(app, cookie, options.host);
  return {
    userId,
    email,
    password: TEST_PASSWORD,
    cookie,
    cookieValue: started.cookieValue,
    csrfToken,
  };
}

/**
 * Reads the CSRF token of a session from the start page's `<meta name="csrf-token">`; `host`
 * for a server with a public URL, which answers other hosts 421.
 */
export async function csrfTokenOf(
  app: FastifyInstance,
  cookie: string,
  host?: string,
): Promise<string> {
  const headers = host === undefined ? { cookie } : { cookie, host };
  const page = await app.inject({ method: 'GET', url: '/', headers });
  const match = /<meta name="csrf-token" content="([^"]+)">/.exec(page.body);
  if (!match?.[1]) throw new Error(`No CSRF token on the start page (status ${page.statusCode}).`);
  return match[1];
}

/** The value of a `Set-Cookie` of this name in a response, or `undefined`. */
export function setCookieValue(
  headers: Record<string, unknown>,
  name: string,
): { value: string; attributes: string } | undefined {
  const raw = headers['set-cookie'];
  const lines = Array.isArray(raw) ? raw : typeof raw === 'string' ? [raw] : [];
  for (const line of lines as string[]) {
    const [pair = '', ...attributes] = line.split(';');
    const index = pair.indexOf('=');
    if (pair.slice(0, index).trim() === name) {
      return { value: pair.slice(index + 1), attributes: attributes.join(';').trim() };
    }
  }
  return undefined;
}
