import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/support/server.js';
import { setCookieValue, TEST_PASSWORD, webSessionFor } from '../../test/support/web.js';
import { createIdGenerator } from '../ids.js';
import { inviteUser } from '../users/user-actions.js';
import { requirePageCapability, sendPage } from './page-context.js';
import { defineTemplate } from './templates.js';
import { loadWebSession } from './web-sessions.js';

const server = useTestServer({
  configure(app) {
    // A page outside the web application's context, to check the helpers on their own.
    app.register(async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        await loadWebSession(
          (await import('../users/sessions.js')).createSessionStore({
            database: server().database,
            clock: server().clock,
            newId: createIdGenerator({ now: () => server().clock.now() }),
          }),
          request,
          reply,
        );
      });
      scope.get(
        '/test-only/audit-page',
        { onRequest: requirePageCapability('audit.read') },
        async (request, reply) =>
          sendPage(request, reply, {
            title: 'Audit test',
            body: defineTemplate<{ text: string }>('<p><%= it.text %></p>').render({
              text: '<script>alert(1)</script>',
            }),
          }),
      );
    });
  },
});

const origin = 'http://localhost:80';

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

async function postForm(
  url: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return server().app.inject({
    method: 'POST',
    url,
    payload: form(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin, ...headers },
  });
}

async function invite(email: string, role = 'ADMIN') {
  const { database, clock } = server();
  return inviteUser(
    {
      database,
      clock,
      newId: createIdGenerator({ now: () => clock.now() }),
      actor: { type: 'operator' },
    },
    { email, role, publicUrl: 'http://localhost' },
  );
}

function linkPath(signInUrl: string): string {
  return new URL(signInUrl).pathname;
}

describe('the web application', () => {
  it('sends a signed-out visitor from / to /signin, and shows the sign-in form', async () => {
    const home = await server().app.inject({ method: 'GET', url: '/' });
    expect(home.statusCode).toBe(303);
    expect(home.headers.location).toBe('/signin');

    const page = await server().app.inject({ method: 'GET', url: '/signin' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain('<label for="email">Email');
    expect(page.body).toContain('<label for="password">Password');
    expect(page.body).toContain('<button type="submit">Sign in</button>');
    expect(page.body).not.toContain('Sign out');
  });

  it('serves pages with a strict CSP, nosniff, frame-ancestors none and Referrer-Policy same-origin', async () => {
    const page = await server().app.inject({ method: 'GET', url: '/signin' });
    const csp = String(page.headers['content-security-policy']);
    const directives = Object.fromEntries(
      csp.split(';').map((directive) => {
        const [name = '', ...values] = directive.trim().split(/\s+/);
        return [name, values.join(' ')];
      }),
    );
    expect(directives['default-src']).toBe("'none'");
    expect(directives['script-src']).toBe("'self'");
    expect(directives['style-src']).toBe("'self'");
    expect(directives['frame-ancestors']).toBe("'none'");
    expect(directives['form-action']).toBe("'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('same-origin');
    expect(page.body).not.toMatch(/<script>|<script [^>]*>[^<]/);
  });

  it('serves fingerprinted assets cached for a year', async () => {
    const page = await server().app.inject({ method: 'GET', url: '/signin' });
    const css = /href="(\/assets\/app\.[0-9a-f]{12}\.css)"/.exec(page.body)?.[1];
    const js = /src="(\/assets\/app\.[0-9a-f]{12}\.js)"/.exec(page.body)?.[1];
    expect(css).toBeDefined();
    expect(js).toBeDefined();
    for (const [path, type] of [
      [css, 'text/css; charset=utf-8'],
      [js, 'text/javascript; charset=utf-8'],
    ] as const) {
      const asset = await server().app.inject({ method: 'GET', url: path as string });
      expect(asset.statusCode).toBe(200);
      expect(asset.headers['content-type']).toBe(type);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const stale = await server().app.inject({ method: 'GET', url: '/assets/app.000000000000.css' });
    expect(stale.statusCode).toBe(404);
  });

  it('invite → Choose a password → signed in, with a new HttpOnly SameSite=Lax session cookie', async () => {
    const invitation = await invite('ada@example.com');
    expect(invitation.signInUrl).toMatch(/^http:\/\/localhost\/signin\/[A-Za-z0-9_-]{43}$/);
    const path = linkPath(invitation.signInUrl);
    const page = await server().app.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Choose a password</h1>');
    expect(page.body).toContain('<label for="password">Password');
    expect(page.body).toContain('<label for="confirmation">Confirm password');
    expect(page.body).toContain('<button type="submit">Set password</button>');

    const short = await postForm(path, { password: 'short', confirmation: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('at least 12 characters');
    const differ = await postForm(path, {
      password: TEST_PASSWORD,
      confirmation: `${TEST_PASSWORD}!`,
    });
    expect(differ.body).toContain('The two passwords differ.');

    const done = await postForm(path, { password: TEST_PASSWORD, confirmation: TEST_PASSWORD });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/');
    const cookie = setCookieValue(done.headers, 'followup_session');
    expect(cookie?.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(cookie?.attributes).toMatch(/HttpOnly/);
    expect(cookie?.attributes).toMatch(/SameSite=Lax/);
    expect(cookie?.attributes).toMatch(/Path=\//);
    expect(cookie?.attributes).not.toMatch(/Secure/);

    const home = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: `followup_session=${cookie?.value}` },
    });
    expect(home.statusCode).toBe(200);
    for (const label of [
      'Contacts',
      'Deals',
      'Service accounts',
      'Users',
      'Webhook endpoints',
      'Deliveries',
      'EHR receipts',
      'Audit log',
    ]) {
      expect(home.body).toContain(`>${label}</a>`);
    }
    expect(home.body).toContain('<button type="submit" class="secondary">Sign out</button>');

    // Single use: the link is spent.
    const again = await server().app.inject({ method: 'GET', url: path });
    expect(again.statusCode).toBe(410);
    const reuse = await postForm(path, { password: TEST_PASSWORD, confirmation: TEST_PASSWORD });
    expect(reuse.statusCode).toBe(410);

    const { rows } = await server().database.query<{ token_sha256: Buffer; used_at: string }>(
      'SELECT token_sha256, used_at FROM sign_in_links',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_sha256.toString('hex')).not.toContain(path.slice(8));
    const stored = await server().database.query<{ password_hash: string }>(
      'SELECT password_hash FROM users',
    );
    expect(stored.rows[0]?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('refuses a sign-in link after 24 hours', async () => {
    const invitation = await invite('late@example.com');
    server().clock.advance(24 * 60 * 60 * 1000);
    const page = await server().app.inject({ method: 'GET', url: linkPath(invitation.signInUrl) });
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('This sign-in link cannot be used');
  });

  it('signs in with email and password; a wrong email and a wrong password get the same answer', async () => {
    const session = await webSessionFor(server(), 'MANAGER', { email: 'grace@example.com' });
    const wrongPassword = await postForm('/signin', {
      email: 'grace@example.com',
      password: 'not the password',
    });
    const wrongEmail = await postForm('/signin', {
      email: 'nobody@example.com',
      password: 'not the password',
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongEmail.statusCode).toBe(401);
    const message = (body: string) =>
      /<p class="notice error" role="alert">([^<]*)<\/p>/.exec(body)?.[1];
    expect(message(wrongPassword.body)).toBe('The e-mail address or the password is wrong.');
    expect(message(wrongEmail.body)).toBe(message(wrongPassword.body));

    const signedIn = await postForm('/signin', {
      email: 'Grace@Example.com',
      password: session.password,
      next: '/audit-log',
    });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/audit-log');
    // A new id at sign-in: never the one the browser already had.
    const fresh = setCookieValue(signedIn.headers, 'followup_session')?.value;
    expect(fresh).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(fresh).not.toBe(session.cookieValue);

    const offSite = await postForm('/signin', {
      email: 'grace@example.com',
      password: session.password,
      next: '//evil.example/',
    });
    expect(offSite.headers.location).toBe('/');

    const { rows } = await server().database.query<{ action: string; actor_type: string }>(
      `SELECT action, actor_type FROM audit_entries WHERE target_id = $1 ORDER BY seq`,
      [session.userId],
    );
    expect(rows.map((row) => row.action)).toEqual([
      'user.sign_in_failed',
      'user.signed_in',
      'user.signed_in',
    ]);
    // A failure for an e-mail no user has is audited too (the same work, so the same time).
    const unknown = await server().database.query<{ action: string; target_type: string }>(
      `SELECT action, target_type FROM audit_entries WHERE target_id = 'nobody@example.com'`,
    );
    expect(unknown.rows).toEqual([{ action: 'user.sign_in_failed', target_type: 'email' }]);
  });

  // Each would be a raw 500 in the Location header (Node's ERR_INVALID_CHAR), after the session
  // and its audit entry were written, with no cookie sent.
  const unsafeNexts = [
    '/audit-log\u0001',
    '/audit-log\r\nSet-Cookie: a=b',
    '/audit-log\u007f',
    '/caf\u00e9',
    '/\u{1f600}',
    '/x\u2028',
  ];

  /** Sessions and `user.signed_in` entries of a user: one of each per cookie sent. */
  async function signInsRecorded(userId: string) {
    const { database } = server();
    const sessions = await database.query('SELECT id FROM sessions WHERE user_id = $1', [userId]);
    const audited = await database.query(
      `SELECT id FROM audit_entries WHERE action = 'user.signed_in' AND target_id = $1`,
      [userId],
    );
    return { sessions: sessions.rows.length, audited: audited.rows.length };
  }

  async function expectSignedInAtStart(response: Awaited<ReturnType<typeof postForm>>) {
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/');
    const cookie = setCookieValue(response.headers, 'followup_session')?.value;
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const home = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: `followup_session=${cookie}` },
    });
    expect(home.statusCode).toBe(200);
    return `followup_session=${cookie}`;
  }

  it('signs in to / with its cookie when next has a control or non-ASCII character, leaving no session without one', async () => {
    const { userId, email, password } = await webSessionFor(server(), 'ADMIN');
    // webSessionFor started one session of its own.
    expect(await signInsRecorded(userId)).toEqual({ sessions: 1, audited: 0 });
    let cookie = '';
    for (const [index, next] of unsafeNexts.entries()) {
      cookie = await expectSignedInAtStart(await postForm('/signin', { email, password, next }));
      expect(await signInsRecorded(userId), next).toEqual({
        sessions: 2 + index,
        audited: 1 + index,
      });
    }
    // Signed in, the sign-in page sends the browser on to next: / for these.
    for (const next of unsafeNexts) {
      const page = await server().app.inject({
        method: 'GET',
        url: `/signin?next=${encodeURIComponent(next)}`,
        headers: { cookie },
      });
      expect(page.statusCode, next).toBe(303);
      expect(page.headers.location).toBe('/');
    }
    // Signed out, the form carries / on.
    const form = await server().app.inject({
      method: 'GET',
      url: `/signin?next=${encodeURIComponent('/audit-log\u0001')}`,
    });
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('<input type="hidden" name="next" value="/">');
  });

  it('signs in through a sign-in link to / with its cookie, whatever next it is given', async () => {
    for (const [index, next] of unsafeNexts.entries()) {
      const invitation = await invite(`link-${index}@example.com`);
      const path = `${linkPath(invitation.signInUrl)}?next=${encodeURIComponent(next)}`;
      await expectSignedInAtStart(
        await postForm(path, { password: TEST_PASSWORD, confirmation: TEST_PASSWORD, next }),
      );
      expect(await signInsRecorded(invitation.id), next).toEqual({ sessions: 1, audited: 1 });
    }
  });

  it('throttles failed sign-ins per account with a 429 page, refusing even the right password, and audits the burst', async () => {
    const session = await webSessionFor(server(), 'AGENT', { email: 'target@example.com' });
    for (let attempt = 0; attempt < 5; attempt++) {
      const failed = await postForm('/signin', {
        email: 'target@example.com',
        password: `wrong password ${attempt}`,
      });
      expect(failed.statusCode).toBe(401);
    }
    const refused = await postForm('/signin', {
      email: 'target@example.com',
      password: session.password,
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('900');
    expect(refused.body).toContain('Too many attempts');
    expect(setCookieValue(refused.headers, 'followup_session')).toBeUndefined();

    server().clock.advance(15 * 60 * 1000);
    const later = await postForm('/signin', {
      email: 'target@example.com',
      password: session.password,
    });
    expect(later.statusCode).toBe(303);

    const { rows } = await server().database.query<{
      action: string;
      target_type: string;
      target_id: string;
    }>(
      `SELECT action, target_type, target_id FROM audit_entries WHERE action = 'sign_in.throttled'`,
    );
    expect(rows).toEqual([
      { action: 'sign_in.throttled', target_type: 'email', target_id: 'target@example.com' },
    ]);
  });

  it('throttles per client address across accounts, without telling which e-mails exist', async () => {
    for (let attempt = 0; attempt < 20; attempt++) {
      const failed = await postForm('/signin', {
        email: `guess-${attempt}@example.com`,
        password: 'a wrong password',
      });
      expect(failed.statusCode).toBe(401);
    }
    const refused = await postForm('/signin', {
      email: 'another@example.com',
      password: 'a wrong password',
    });
    expect(refused.statusCode).toBe(429);
  });

  it('signs out: the session is deleted server-side and the old cookie no longer works', async () => {
    const session = await webSessionFor(server(), 'ADMIN');
    const out = await postForm(
      '/signout',
      { _csrf: session.csrfToken },
      { cookie: session.cookie },
    );
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/signin');
    expect(setCookieValue(out.headers, 'followup_session')?.value).toBe('');
    const { rows } = await server().database.query('SELECT id FROM sessions');
    expect(rows).toEqual([]);
    const home = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: session.cookie },
    });
    expect(home.statusCode).toBe(303);
    const actions = await server().database.query<{ action: string; actor_id: string }>(
      `SELECT action, actor_id FROM audit_entries WHERE action = 'user.signed_out'`,
    );
    expect(actions.rows).toEqual([{ action: 'user.signed_out', actor_id: session.userId }]);
  });

  it('refuses a form without the CSRF token, or from another origin, with 403 csrf_invalid, and changes nothing', async () => {
    const session = await webSessionFor(server(), 'ADMIN');
    const cases = [
      { fields: {}, headers: { cookie: session.cookie } },
      { fields: { _csrf: 'forged-token' }, headers: { cookie: session.cookie } },
      {
        fields: { _csrf: session.csrfToken },
        headers: { cookie: session.cookie, origin: 'https://evil.example' },
      },
      { fields: { _csrf: session.csrfToken }, headers: { cookie: session.cookie, origin: 'null' } },
    ];
    for (const { fields, headers } of cases) {
      const refused = await postForm('/signout', fields, headers);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.json()).toMatchObject({
        type: 'urn:followup:problem:csrf_invalid',
        code: 'csrf_invalid',
        status: 403,
      });
    }
    const { rows } = await server().database.query('SELECT id FROM sessions');
    expect(rows).toHaveLength(1);
    // Origin: null with Sec-Fetch-Site: same-origin is our own form.
    const ours = await postForm(
      '/signout',
      { _csrf: session.csrfToken },
      { cookie: session.cookie, origin: 'null', 'sec-fetch-site': 'same-origin' },
    );
    expect(ours.statusCode).toBe(303);
  });

  it('refuses a cross-site sign-in form (login CSRF)', async () => {
    await webSessionFor(server(), 'ADMIN', { email: 'x@example.com' });
    const refused = await postForm(
      '/signin',
      { email: 'x@example.com', password: TEST_PASSWORD },
      { origin: 'https://evil.example' },
    );
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('csrf_invalid');
  });

  it('rotates the session id after 15 minutes of use, with a few seconds of grace for the old id', async () => {
    const session = await webSessionFor(server(), 'ADMIN');
    server().clock.advance(15 * 60 * 1000);
    const first = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: session.cookie },
    });
    expect(first.statusCode).toBe(200);
    const rotated = setCookieValue(first.headers, 'followup_session')?.value;
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(session.cookieValue);
    // A parallel request with the old id still works, and does not rotate again.
    server().clock.advance(5_000);
    const parallel = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: session.cookie },
    });
    expect(parallel.statusCode).toBe(200);
    expect(setCookieValue(parallel.headers, 'followup_session')).toBeUndefined();
    server().clock.advance(6_000);
    const late = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: session.cookie },
    });
    expect(late.statusCode).toBe(303);
    const current = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: `followup_session=${rotated}` },
    });
    expect(current.statusCode).toBe(200);
    // The CSRF token made before the rotation still holds: it belongs to the session, not the id.
    const out = await postForm(
      '/signout',
      { _csrf: session.csrfToken },
      { cookie: `followup_session=${rotated}` },
    );
    expect(out.statusCode).toBe(303);
  });

  it('ends a session idle for 30 minutes, and any session 12 hours after sign-in', async () => {
    const idle = await webSessionFor(server(), 'ADMIN');
    server().clock.advance(30 * 60 * 1000);
    expect(
      (await server().app.inject({ method: 'GET', url: '/', headers: { cookie: idle.cookie } }))
        .statusCode,
    ).toBe(303);

    const busy = await webSessionFor(server(), 'ADMIN');
    let cookie = busy.cookie;
    for (let minute = 0; minute < 12 * 60; minute += 10) {
      server().clock.advance(10 * 60 * 1000);
      const page = await server().app.inject({ method: 'GET', url: '/', headers: { cookie } });
      const rotated = setCookieValue(page.headers, 'followup_session')?.value;
      if (rotated) cookie = `followup_session=${rotated}`;
      if (minute + 10 < 12 * 60) expect(page.statusCode).toBe(200);
      else expect(page.statusCode).toBe(303);
    }
  });

  it('answers the 403 page to a role without the page capability, and escapes what it shows', async () => {
    const agent = await webSessionFor(server(), 'AGENT');
    const refused = await server().app.inject({
      method: 'GET',
      url: '/test-only/audit-page',
      headers: { cookie: agent.cookie },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('<h1>Not allowed</h1>');
    const home = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: agent.cookie },
    });
    expect(home.body).not.toContain('>Audit log</a>');
    expect(home.body).not.toContain('>Users</a>');

    const manager = await webSessionFor(server(), 'MANAGER', {
      name: '<img src=x onerror=alert(1)>',
    });
    const page = await server().app.inject({
      method: 'GET',
      url: '/test-only/audit-page',
      headers: { cookie: manager.cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.body).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.body).not.toContain('<img src=x');
    const managerHome = await server().app.inject({
      method: 'GET',
      url: '/',
      headers: { cookie: manager.cookie },
    });
    expect(managerHome.body).toContain('>Audit log</a>');
    expect(managerHome.body).toContain('>EHR receipts</a>');
    expect(managerHome.body).not.toContain('>Users</a>');

    const stale = await postForm('/signout', { _csrf: 'x' });
    expect(stale.statusCode).toBe(303);
    expect(stale.headers.location).toBe('/signin');
    const signedOut = await server().app.inject({ method: 'GET', url: '/test-only/audit-page' });
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe('/signin?next=%2Ftest-only%2Faudit-page');
  });
});
