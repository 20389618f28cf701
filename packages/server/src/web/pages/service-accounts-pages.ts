import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { parseDuration } from '../../duration.js';
import { ProblemError } from '../../problem-error.js';
import { type Role, roles } from '../../tokens/role.js';
import { MAX_ROLL_GRACE_SECONDS } from '../../tokens/token-limits.js';
import { pageContext, sendPage } from '../page-context.js';
import { sendConfirmPage } from './confirm-page.js';
import { listPage } from './list-page.js';
import {
  actorOf,
  noticeOf,
  pageRoute,
  recallFlash,
  rememberFlash,
  rememberNotice,
  sendNotFoundPage,
  textField,
  when,
  withPageErrors,
} from './page-helpers.js';
import {
  accountTemplate,
  DEFAULT_TOKEN_EXPIRY,
  listTemplate,
  MAX_CUSTOM_EXPIRY_DAYS,
  newTemplate,
  revokeTemplate,
  rollTemplate,
  tokenExpiryChoices,
} from './service-accounts-templates.js';
import type { WebPage } from './web-page.js';

/** An account's page. */
function accountPath(id: string): string {
  return `/service-accounts/${encodeURIComponent(id)}`;
}

function expiryOf(body: unknown): number | undefined {
  const choice = tokenExpiryChoices.find((item) => item.value === textField(body, 'expires', 10));
  if (!choice) throw invalidInput('Expires in: choose one of the listed choices.');
  if (choice.value !== 'custom') return choice.seconds ?? undefined;
  const days = textField(body, 'days', 10);
  if (!/^[1-9]\d{0,3}$/.test(days) || Number(days) > MAX_CUSTOM_EXPIRY_DAYS) {
    throw invalidInput(
      `Custom number of days: a whole number from 1 to ${MAX_CUSTOM_EXPIRY_DAYS}.`,
    );
  }
  return Number(days) * 86_400;
}

function invalidInput(message: string) {
  return new ProblemError({ code: 'validation_failed', detail: message });
}

/**
 * @internal The Service accounts pages (users.manage): the list, **Create service account**, an
 * account's tokens, **Issue token** (shown once, after a redirect), **Revoke** confirmed by
 * **Revoke token**, and **Disable account**. Every change goes through the account store, as the
 * operator commands do, with the signed-in user as the audit actor.
 */
export const serviceAccountsPages: WebPage =
  ({ database, clock, newId, accounts }) =>
  async (app: FastifyInstance) => {
    const guard = pageRoute('users.manage');

    /** Keeps a new token for its account's page to show once, and sends the browser there. */
    const showTokenOnce = async (
      request: FastifyRequest,
      reply: FastifyReply,
      accountId: string,
      issued: { id: string; token: string; expiresAt: string | null },
      notice: string,
    ) => {
      await rememberFlash(
        request,
        reply,
        { database, clock, newId },
        {
          kind: 'token',
          accountId,
          id: issued.id,
          token: issued.token,
          expiresAt: issued.expiresAt,
          notice,
        },
      );
      return reply.redirect(accountPath(accountId), 303);
    };

    app.get('/service-accounts', guard, async (request, reply) => {
      const page = listPage(request.query, '/service-accounts');
      const list = await accounts.listAccounts({ limit: page.limit, offset: page.offset });
      return sendPage(request, reply, {
        title: 'Service accounts',
        body: listTemplate.render({
          accounts: list,
          paging: page.paging(list.length),
          when,
        }),
      });
    });

    app.get('/service-accounts/new', guard, async (request, reply) =>
      sendPage(request, reply, {
        title: 'Create service account',
        body: newTemplate.render({ csrfToken: pageContext(request).csrfToken, roles }),
      }),
    );

    app.post('/service-accounts', guard, async (request, reply) =>
      withPageErrors(request, reply, '/service-accounts/new', async () => {
        const name = textField(request.body, 'name', 201);
        if (name === '' || name.length > 200) throw invalidInput('Name: 1 to 200 characters.');
        const role = textField(request.body, 'role', 10) as Role;
        if (!roles.includes(role)) throw invalidInput(`Role: one of ${roles.join(', ')}.`);
        const account = await accounts.createAccount({ name, role, actor: actorOf(request) });
        await rememberNotice(
          request,
          reply,
          { database, clock, newId },
          `Service account ${account.name} created. Issue it a token below.`,
        );
        return reply.redirect(accountPath(account.id), 303);
      }),
    );

    app.get<{ Params: { id: string } }>('/service-accounts/:id', guard, async (request, reply) => {
      const account = await accounts.getAccount(request.params.id);
      if (!account) return sendNotFoundPage(request, reply, '/service-accounts');
      const flash = await recallFlash(request, reply, { database, clock });
      const issued =
        flash?.kind === 'token' && flash.accountId === account.id
          ? (flash as unknown as { id: string; token: string; expiresAt: string | null })
          : undefined;
      return sendPage(request, reply, {
        title: account.name,
        notice: noticeOf(flash),
        body: accountTemplate.render({
          account,
          tokens: await accounts.listTokens(account.id),
          issued,
          csrfToken: pageContext(request).csrfToken,
          choices: tokenExpiryChoices,
          defaultChoice: DEFAULT_TOKEN_EXPIRY,
          maxDays: MAX_CUSTOM_EXPIRY_DAYS,
          when,
        }),
      });
    });

    app.post<{ Params: { id: string } }>(
      '/service-accounts/:id/tokens',
      guard,
      async (request, reply) => {
        const back = accountPath(request.params.id);
        return withPageErrors(request, reply, back, async () => {
          const ttlSeconds = expiryOf(request.body);
          const label = textField(request.body, 'label', 101);
          const issued = await accounts.issueToken({
            accountId: request.params.id,
            actor: actorOf(request),
            ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
            ...(label === '' ? {} : { label }),
          });
          return showTokenOnce(
            request,
            reply,
            request.params.id,
            issued,
            `Token ${issued.id} issued.`,
          );
        });
      },
    );

    // The token of the URL, when it belongs to the URL's account (otherwise the pages answer 404).
    const tokenOfAccount = async (params: { id: string; tokenId: string }) => {
      const token = await accounts.getToken(params.tokenId);
      return token?.accountId === params.id ? token : undefined;
    };

    // The confirmation pages of Revoke and Roll: the token, and the form that does it.
    for (const [action, title, template] of [
      ['revoke', 'Revoke token', revokeTemplate],
      ['roll', 'Roll token', rollTemplate],
    ] as const) {
      app.get<{ Params: { id: string; tokenId: string } }>(
        `/service-accounts/:id/tokens/:tokenId/${action}`,
        guard,
        async (request, reply) => {
          const back = accountPath(request.params.id);
          const token = await tokenOfAccount(request.params);
          if (!token) return sendNotFoundPage(request, reply, back);
          return sendPage(request, reply, {
            title,
            body: template.render({
              accountId: request.params.id,
              token,
              csrfToken: pageContext(request).csrfToken,
              when,
            }),
          });
        },
      );
    }

    app.post<{ Params: { id: string; tokenId: string } }>(
      '/service-accounts/:id/tokens/:tokenId/revoke',
      guard,
      async (request, reply) => {
        const back = accountPath(request.params.id);
        return withPageErrors(request, reply, back, async () => {
          const token = await tokenOfAccount(request.params);
          if (!token) return sendNotFoundPage(request, reply, back);
          await accounts.revokeToken({ tokenId: token.id, actor: actorOf(request) });
          await rememberNotice(
            request,
            reply,
            { database, clock, newId },
            `Token ${token.id} revoked: calls with it now fail with 401.`,
          );
          return reply.redirect(back, 303);
        });
      },
    );

    app.post<{ Params: { id: string; tokenId: string } }>(
      '/service-accounts/:id/tokens/:tokenId/roll',
      guard,
      async (request, reply) => {
        const back = accountPath(request.params.id);
        return withPageErrors(request, reply, back, async () => {
          const token = await tokenOfAccount(request.params);
          if (!token) return sendNotFoundPage(request, reply, back);
          const graceSeconds = parseDuration(textField(request.body, 'grace', 12), {
            max: MAX_ROLL_GRACE_SECONDS,
          });
          if (graceSeconds === undefined) {
            throw invalidInput(
              'Grace period: digits and one unit, such as 90s, 30m, 24h or 7d; at most 30d.',
            );
          }
          const { issued } = await accounts.rollToken({
            tokenId: token.id,
            graceSeconds,
            actor: actorOf(request),
          });
          return showTokenOnce(
            request,
            reply,
            request.params.id,
            issued,
            `Token ${token.id} rolled: ${issued.id} replaces it.`,
          );
        });
      },
    );

    app.get<{ Params: { id: string } }>(
      '/service-accounts/:id/disable',
      guard,
      async (request, reply) => {
        const account = await accounts.getAccount(request.params.id);
        if (!account) return sendNotFoundPage(request, reply, '/service-accounts');
        const path = accountPath(account.id);
        return sendConfirmPage(request, reply, {
          heading: `Disable ${account.name}?`,
          about: `${account.id} · ${account.role} · created ${when(account.createdAt)}`,
          warning:
            'Every token of the account is revoked at once, and it cannot be issued new ones. This cannot be undone.',
          action: `${path}/disable`,
          button: 'Disable account',
          cancel: path,
        });
      },
    );

    app.post<{ Params: { id: string } }>(
      '/service-accounts/:id/disable',
      guard,
      async (request, reply) => {
        const back = accountPath(request.params.id);
        return withPageErrors(request, reply, back, async () => {
          const { tokensRevoked } = await accounts.disableAccount({
            accountId: request.params.id,
            actor: actorOf(request),
          });
          await rememberNotice(
            request,
            reply,
            { database, clock, newId },
            `Account disabled; ${tokensRevoked} token${tokensRevoked === 1 ? '' : 's'} revoked.`,
          );
          return reply.redirect(back, 303);
        });
      },
    );
  };
