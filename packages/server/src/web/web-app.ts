import fastifyFormbody from '@fastify/formbody';
import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { prepareDecoyHash } from '../users/passwords.js';
import type { SessionStore } from '../users/sessions.js';
import { setPasswordWithLink, signInWithPassword, signOut } from '../users/sign-in.js';
import { findUsableSignInLink } from '../users/sign-in-links.js';
import type { SignInThrottle } from '../users/sign-in-throttle.js';
import { registerAssetRoutes } from './assets.js';
import { requireSignedIn, sendPage, sendTooManyRequestsPage } from './page-context.js';
import { safeNext } from './safe-next.js';
import { choosePasswordTemplate, linkUnusableTemplate, signInTemplate } from './sign-in-pages.js';
import {
  checkCsrf,
  checkSameOrigin,
  clearSessionCookie,
  loadWebSession,
  sessionCookieValue,
  setSessionCookie,
} from './web-sessions.js';

/** @internal What the web application needs. */
export interface WebAppOptions {
  database: Database;
  clock: Clock;
  newId: IdGenerator;
  sessions: SessionStore;
  throttle: SignInThrottle;
  /** The server's public origin (`--public-url`), accepted in `Origin` beside the request's own. */
  publicOrigin: string | undefined;
  /**
   * More pages: each is registered inside the web application's context (sessions loaded,
   * helmet, forms, CSRF checked, `no-store`).
   */
  pages?: readonly FastifyPluginAsync[];
  /** Told how each sign-in with a password ended (the metrics). */
  onSignInAttempt?: ((outcome: 'success' | 'failure' | 'throttled') => void) | undefined;
}

// The Content-Security-Policy of every page: nothing but our own scripts, styles and images.
const contentSecurityDirectives = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  fontSrc: ["'self'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  objectSrc: ["'none'"],
} as const;

/**
 * @internal The security headers of a console page answered outside the web application's
 * context (the 404 and 405 pages of `console-fallback.ts`, from the root's not-found handler):
 * the same policy as helmet sends on every other page, written from the same directives.
 */
export const consoleSecurityHeaders: Readonly<Record<string, string>> = {
  'Content-Security-Policy': Object.entries(contentSecurityDirectives)
    .map(
      ([name, sources]) =>
        `${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} ${sources.join(' ')}`,
    )
    .join(';'),
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'SAMEORIGIN',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

// Form bodies are small: a sign-in, a name, a label. Larger ones are refused with 413.
const formBodyLimit = 16 * 1024;

function field(body: unknown, name: string, max: number): string {
  if (typeof body !== 'object' || body === null) return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/**
 * @internal The web application: pages served by the server itself, in a Fastify context of
 * their own. See src/web/README.md for how a page request flows and how to add a page.
 */
export function webApp(options: WebAppOptions): FastifyPluginAsync {
  const { sessions, publicOrigin } = options;
  const signInContext = options;

  return async (app: FastifyInstance) => {
    // Not awaited: it runs on libuv's pool while the server gets ready.
    prepareDecoyHash().catch(() => undefined);
    await app.register(fastifyHelmet, {
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          ...contentSecurityDirectives,
        },
      },
      // Sign-in links carry a secret in their path: never send it to another origin. Not
      // no-referrer, with which browsers send `Origin: null` on our own forms.
      referrerPolicy: { policy: 'same-origin' },
      strictTransportSecurity: false,
    });
    await app.register(fastifyFormbody, { bodyLimit: formBodyLimit });

    app.addHook('onRequest', async (request, reply) => {
      await loadWebSession(sessions, request, reply);
    });
    // Every unsafe page request must come from our own pages; with a session it must also carry
    // the session's CSRF token (the form field is readable only once the body is parsed).
    app.addHook('preHandler', async (request) => {
      if (request.method === 'GET' || request.method === 'HEAD') return;
      checkSameOrigin(request, publicOrigin);
      if (request.webSession) checkCsrf(request, request.webSession, publicOrigin);
    });
    app.addHook('onSend', async (request, reply) => {
      if (!request.url.startsWith('/assets/')) reply.header('Cache-Control', 'no-store');
    });

    registerAssetRoutes(app);

    app.get('/signin', { schema: { hide: true } }, async (request, reply) => {
      const next = safeNext(field(request.query, 'next', 2048));
      if (request.webSession) return reply.redirect(next, 303);
      return sendPage(request, reply, {
        title: 'Sign in',
        body: signInTemplate.render({ email: '', next }),
      });
    });

    // Anyone may call these: each client address has a budget, counted before any work.
    app.post(
      '/signin',
      { schema: { hide: true }, onRequest: app.limitByAddress },
      async (request, reply) => {
        const email = field(request.body, 'email', 320);
        const next = safeNext(field(request.body, 'next', 2048));
        const result = await signInWithPassword(signInContext, {
          email,
          password: field(request.body, 'password', 4096),
          address: request.ip,
        });
        options.onSignInAttempt?.(
          result.ok ? 'success' : result.reason === 'throttled' ? 'throttled' : 'failure',
        );
        if (!result.ok && result.reason === 'throttled') {
          return sendTooManyRequestsPage(request, reply, result.retryAfterSeconds);
        }
        if (!result.ok) {
          return sendPage(request, reply, {
            title: 'Sign in',
            status: 401,
            body: signInTemplate.render({
              email,
              next,
              error: 'The e-mail address or the password is wrong.',
            }),
          });
        }
        // A fresh id from the server at every sign-in: whatever cookie came in is replaced.
        await endPresentedSession(request);
        setSessionCookie(request, reply, result.session.cookieValue);
        return reply.redirect(next, 303);
      },
    );

    async function endPresentedSession(request: FastifyRequest): Promise<void> {
      if (request.webSession) await signOut(signInContext, sessionCookieValue(request));
    }

    const linkPath = '/signin/:token';
    function linkAction(token: string): string {
      return `/signin/${encodeURIComponent(token)}`;
    }
    function unusable(request: FastifyRequest, reply: FastifyReply): FastifyReply {
      return sendPage(request, reply, {
        title: 'Sign-in link cannot be used',
        status: 410,
        body: linkUnusableTemplate.render({}),
      });
    }

    app.get<{ Params: { token: string } }>(
      linkPath,
      { schema: { hide: true }, onRequest: app.limitByAddress },
      async (request, reply) => {
        const token = request.params.token;
        const link = await findUsableSignInLink(options.database, token, options.clock);
        if (!link) return unusable(request, reply);
        return sendPage(request, reply, {
          title: 'Choose a password',
          body: choosePasswordTemplate.render({ email: link.email, action: linkAction(token) }),
        });
      },
    );

    app.post<{ Params: { token: string } }>(
      linkPath,
      { schema: { hide: true }, onRequest: app.limitByAddress },
      async (request, reply) => {
        const token = request.params.token;
        const result = await setPasswordWithLink(signInContext, {
          token,
          password: field(request.body, 'password', 4096),
          confirmation: field(request.body, 'confirmation', 4096),
          address: request.ip,
        });
        if (!result.ok && result.reason === 'link_unusable') return unusable(request, reply);
        if (!result.ok) {
          const link = await findUsableSignInLink(options.database, token, options.clock);
          if (!link) return unusable(request, reply);
          return sendPage(request, reply, {
            title: 'Choose a password',
            status: 400,
            body: choosePasswordTemplate.render({
              email: link.email,
              action: linkAction(token),
              error: result.message,
            }),
          });
        }
        await endPresentedSession(request);
        setSessionCookie(request, reply, result.session.cookieValue);
        return reply.redirect('/', 303);
      },
    );

    app.post(
      '/signout',
      { schema: { hide: true }, onRequest: requireSignedIn },
      async (request, reply) => {
        await signOut(signInContext, sessionCookieValue(request));
        clearSessionCookie(request, reply);
        return reply.redirect('/signin', 303);
      },
    );

    for (const page of options.pages ?? []) await app.register(page);
  };
}
