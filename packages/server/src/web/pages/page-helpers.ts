import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Capability } from '../../capabilities.js';
import type { Clock } from '../../clock.js';
import type { IdGenerator } from '../../ids.js';
import type { Queryable } from '../../storage/database.js';
import type { AuditActor } from '../../stores/audit-store.js';
import { FLASH_COOKIE, putFlash, takeFlash } from '../one-time-flash.js';
import { pageContext, requirePageCapability, sendPage } from '../page-context.js';
import { pageRefusalOf } from '../page-refusal.js';
import { defineTemplate } from '../templates.js';

/**
 * @internal A text field of a form body, whole, trimmed: for a value whose limit the action
 * checks, so that one too long is refused with a message, never cut and saved. (The form body
 * itself is bounded, 16 KiB.)
 */
export function wholeTextField(source: unknown, name: string): string {
  if (typeof source !== 'object' || source === null || !Object.hasOwn(source, name)) return '';
  const value = (source as Record<string, unknown>)[name];
  const text = typeof value === 'string' ? value : Array.isArray(value) ? String(value[0]) : '';
  return text.trim();
}

/** @internal A text field of a form body or a query string: at most `max` characters, trimmed. */
export function textField(source: unknown, name: string, max = 200): string {
  if (typeof source !== 'object' || source === null) return '';
  const value = (source as Record<string, unknown>)[name];
  const text = typeof value === 'string' ? value : Array.isArray(value) ? String(value[0]) : '';
  return text.slice(0, max).trim();
}

/**
 * @internal The options of every page route: the capability check (signed out: to /signin;
 * without the capability: the 403 page), and no place in the OpenAPI document.
 */
export function pageRoute(capability: Capability) {
  return { onRequest: requirePageCapability(capability), schema: { hide: true } };
}

/** @internal Who acts, for the audit log: the signed-in user. */
export function actorOf(request: FastifyRequest): AuditActor {
  return { type: 'user', id: pageContext(request).user.id };
}

/** @internal A timestamp as people read it: `2026-03-01 09:00:00 UTC`, or a dash. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** @internal The hidden CSRF field of every form. */
export const csrfPartial = `<input type="hidden" name="_csrf" value="<%= it.csrfToken %>">`;

const errorTemplate = defineTemplate<{ title: string; message: string; back: string }>(`
<h1><%= it.title %></h1>
<p class="notice error" role="alert"><%= it.message %></p>
<p><a href="<%= it.back %>">Back</a></p>
`);

// The codes of a change that conflicts with the record's state, answered 409.
const consoleConflicts: ReadonlySet<string> = new Set(['conflict']);

/**
 * @internal Runs a page action; a refusal it throws (bad input, an unknown id, a conflict) is
 * answered as a page with its message and status, never a 500 and never a half-done change.
 */
export async function withPageErrors(
  request: FastifyRequest,
  reply: FastifyReply,
  back: string,
  action: () => Promise<FastifyReply>,
): Promise<FastifyReply> {
  try {
    return await action();
  } catch (error) {
    const refusal = pageRefusalOf(error, consoleConflicts);
    if (refusal === undefined) throw error;
    const { status, message } = refusal;
    return sendPage(request, reply, {
      title: 'That did not work',
      status,
      body: errorTemplate.render({ title: 'That did not work', message, back }),
    });
  }
}

/** @internal A page that does not exist: 404. */
export function sendNotFoundPage(
  request: FastifyRequest,
  reply: FastifyReply,
  back: string,
): FastifyReply {
  return sendPage(request, reply, {
    title: 'Not found',
    status: 404,
    body: errorTemplate.render({ title: 'Not found', message: 'Nothing has this id.', back }),
  });
}

function flashCookieOptions(request: FastifyRequest) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    path: '/',
    secure: request.protocol === 'https',
  };
}

/**
 * @internal Keeps a one-time message (a new token or secret) for the page the browser is sent to
 * next (post/redirect/get): encrypted in the database, its key in an HttpOnly cookie.
 */
export async function rememberFlash(
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: { database: Queryable; clock: Clock; newId: IdGenerator },
  payload: Record<string, unknown>,
): Promise<void> {
  const value = await putFlash(dependencies.database, {
    sessionId: pageContext(request).sessionId,
    payload,
    ...dependencies,
  });
  reply.setCookie(FLASH_COOKIE, value, flashCookieOptions(request));
}

/**
 * @internal Takes the one-time message the request's flash cookie points to, if any, and clears
 * the cookie: a reload shows nothing.
 */
export async function recallFlash(
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: { database: Queryable; clock: Clock },
): Promise<Record<string, unknown> | undefined> {
  const cookieValue = request.cookies[FLASH_COOKIE];
  if (cookieValue === undefined) return undefined;
  reply.clearCookie(FLASH_COOKIE, flashCookieOptions(request));
  const payload = await takeFlash(dependencies.database, {
    sessionId: pageContext(request).sessionId,
    cookieValue,
    clock: dependencies.clock,
  });
  return typeof payload === 'object' && payload !== null
    ? (payload as Record<string, unknown>)
    : undefined;
}

/**
 * @internal The success message a flash carries (`notice`), if any: every change that answers
 * with a redirect keeps one, beside its one-time secret when it has one.
 */
export function noticeOf(flash: Record<string, unknown> | undefined): string | undefined {
  return typeof flash?.notice === 'string' ? flash.notice : undefined;
}

/**
 * @internal Keeps a success message ("Token revoked.") for the page the browser is sent to next,
 * which shows it once (see {@link recallNotice}).
 */
export async function rememberNotice(
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: { database: Queryable; clock: Clock; newId: IdGenerator },
  notice: string,
): Promise<void> {
  await rememberFlash(request, reply, dependencies, { notice });
}

/** @internal Takes the success message kept for this page, if any (a reload shows nothing). */
export async function recallNotice(
  request: FastifyRequest,
  reply: FastifyReply,
  dependencies: { database: Queryable; clock: Clock },
): Promise<string | undefined> {
  return noticeOf(await recallFlash(request, reply, dependencies));
}
