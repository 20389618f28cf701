import type { FastifyInstance, FastifyReply } from 'fastify';
import { type Role, roles } from '../../tokens/role.js';
import {
  changeUserRole,
  disableUser,
  getUserInfo,
  inviteUser,
  listUsers,
  revokeUserSessions,
  type UserInfo,
} from '../../users/user-actions.js';
import { pageContext, publicUrlOf, sendPage } from '../page-context.js';
import { defineTemplate } from '../templates.js';
import { sendConfirmPage } from './confirm-page.js';
import { listPage, listTable, type Paging, pagingPartial } from './list-page.js';
import {
  actorOf,
  csrfPartial,
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
import { rowMenu } from './row-menu.js';
import type { WebPage } from './web-page.js';

const listTemplate = defineTemplate<{
  users: UserInfo[];
  me: string;
  invited: { email: string; signInUrl: string; expiresAt: string } | undefined;
  roles: readonly Role[];
  csrfToken: string;
  paging: Paging;
  when: (iso: string | null | undefined) => string;
}>(`
<h1>Users</h1>
<p>People who sign in to this web application. Their role fixes what they may do, as for service accounts.</p>
<form method="get" action="/users/invite"><button type="submit">Invite user</button></form>
<% if (it.invited) { %>
<section class="notice warning" aria-labelledby="invite-heading">
<h2 id="invite-heading">Sign-in link for <%= it.invited.email %></h2>
<p><strong>Send this link to them now: this is the only time it is shown.</strong> It works once, until <%= it.when(it.invited.expiresAt) %>.</p>
<p class="secret" id="sign-in-link"><%= it.invited.signInUrl %></p>
<button type="button" class="secondary" data-copy="sign-in-link" data-js-only>Copy link</button>
</section>
<% } %>
${listTable({
  rows: 'users',
  label: 'Users',
  narrow: 'cards',
  row: 'user',
  columns: ['Name', 'Email', 'Role', 'State', 'Created', 'Actions'],
  cells: `<td><%= user.name %></td>
<td><%= user.email %></td>
<td><%= user.role %></td>
<td><%= user.state %></td>
<td><%= it.when(user.createdAt) %></td>
<td><% if (user.state !== 'disabled' && user.id !== it.me) { %>
<div class="row-actions">
<form method="post" action="/users/<%= encodeURIComponent(user.id) %>/role" class="inline">
${csrfPartial}
<label for="role-<%= user.id %>" class="visually-hidden">Role of <%= user.email %></label>
<select id="role-<%= user.id %>" name="role">
<% for (const role of it.roles) { %><option value="<%= role %>"<%= role === user.role ? ' selected' : '' %>><%= role %></option>
<% } %>
</select>
<button type="submit" class="secondary" aria-label="Change role of <%= user.email %>">Change role</button>
</form>
${rowMenu({
  label: 'user.email',
  items: `<form method="get" action="/users/<%= encodeURIComponent(user.id) %>/sessions/revoke" class="inline">
<button type="submit" class="danger-outline" aria-label="Revoke sessions of <%= user.email %>">Revoke sessions</button>
</form>
<form method="get" action="/users/<%= encodeURIComponent(user.id) %>/disable" class="inline">
<button type="submit" class="danger-outline" aria-label="Disable <%= user.email %>">Disable</button>
</form>`,
})}
</div>
<% } %></td>`,
  empty: 'No users yet. Invite someone: they get a one-time link to choose a password.',
})}
${pagingPartial}
`);

const inviteTemplate = defineTemplate<{ csrfToken: string; roles: readonly Role[] }>(`
<h1>Invite user</h1>
<p>They get a sign-in link that works once, for 24 hours, to choose a password.</p>
<form method="post" action="/users/invite" class="stacked">
${csrfPartial}
<label for="email">Email
<input id="email" name="email" type="email" required maxlength="320" autocomplete="off">
</label>
<label for="name">Name
<input id="name" name="name" maxlength="200" autocomplete="off">
</label>
<label for="role">Role
<select id="role" name="role">
<% for (const role of it.roles) { %><option value="<%= role %>"<%= role === 'READONLY' ? ' selected' : '' %>><%= role %></option>
<% } %>
</select>
</label>
<button type="submit">Invite</button>
</form>
<p><a href="/users">Back to users</a></p>
`);

/**
 * @internal The Users pages (users.manage): the list, **Invite user** (the link shown once, after
 * a redirect), change role, disable: the same functions as `followup-server users …`.
 */
export const usersPages: WebPage =
  ({ database, clock, newId, publicUrl }) =>
  async (app: FastifyInstance) => {
    const guard = pageRoute('users.manage');
    const context = (request: Parameters<typeof actorOf>[0]) => ({
      database,
      clock,
      newId,
      actor: actorOf(request),
    });

    app.get('/users', guard, async (request, reply) => {
      const page = listPage(request.query, '/users');
      const users = await listUsers(database, { limit: page.limit, offset: page.offset });
      const flash = await recallFlash(request, reply, { database, clock });
      const { csrfToken, user } = pageContext(request);
      return sendPage(request, reply, {
        title: 'Users',
        notice: noticeOf(flash),
        body: listTemplate.render({
          users,
          me: user.id,
          invited:
            flash?.kind === 'invite'
              ? (flash as unknown as { email: string; signInUrl: string; expiresAt: string })
              : undefined,
          roles,
          csrfToken,
          paging: page.paging(users.length),
          when,
        }),
      });
    });

    app.get('/users/invite', guard, async (request, reply) =>
      sendPage(request, reply, {
        title: 'Invite user',
        body: inviteTemplate.render({ csrfToken: pageContext(request).csrfToken, roles }),
      }),
    );

    app.post('/users/invite', guard, async (request, reply) =>
      withPageErrors(request, reply, '/users/invite', async () => {
        const invitation = await inviteUser(context(request), {
          email: textField(request.body, 'email', 321),
          name: textField(request.body, 'name', 201),
          role: textField(request.body, 'role', 10),
          publicUrl: publicUrlOf(request, publicUrl),
        });
        await rememberFlash(
          request,
          reply,
          { database, clock, newId },
          {
            kind: 'invite',
            email: invitation.email,
            signInUrl: invitation.signInUrl,
            expiresAt: invitation.expiresAt,
            notice: `${invitation.email} invited as ${invitation.role}.`,
          },
        );
        return reply.redirect('/users', 303);
      }),
    );

    const done = (request: Parameters<typeof actorOf>[0], reply: FastifyReply, notice: string) =>
      rememberNotice(request, reply, { database, clock, newId }, notice);

    app.post<{ Params: { id: string } }>('/users/:id/role', guard, async (request, reply) =>
      withPageErrors(request, reply, '/users', async () => {
        const user = await changeUserRole(
          context(request),
          request.params.id,
          textField(request.body, 'role', 10),
        );
        await done(request, reply, `${user.email} is now ${user.role}.`);
        return reply.redirect('/users', 303);
      }),
    );

    // The confirm pages of Revoke sessions and Disable: what happens, and the form that does it.
    const confirmations = {
      'sessions/revoke': (user: UserInfo) => ({
        heading: `Revoke the sessions of ${user.email}?`,
        warning: `They are signed out everywhere at once (${user.sessions} session${user.sessions === 1 ? '' : 's'}) and must sign in again.`,
        button: 'Revoke sessions',
      }),
      disable: (user: UserInfo) => ({
        heading: `Disable ${user.email}?`,
        warning: 'They are signed out everywhere and can no longer sign in. This cannot be undone.',
        button: 'Disable user',
      }),
    } as const;
    for (const [action, confirmation] of Object.entries(confirmations)) {
      app.get<{ Params: { id: string } }>(`/users/:id/${action}`, guard, async (request, reply) => {
        const user = await getUserInfo(database, request.params.id);
        if (!user) return sendNotFoundPage(request, reply, '/users');
        return sendConfirmPage(request, reply, {
          ...confirmation(user),
          about: `${user.name ? `${user.name} · ` : ''}${user.role} · ${user.state}`,
          action: `/users/${encodeURIComponent(user.id)}/${action}`,
          cancel: '/users',
        });
      });
    }

    app.post<{ Params: { id: string } }>(
      '/users/:id/sessions/revoke',
      guard,
      async (request, reply) =>
        withPageErrors(request, reply, '/users', async () => {
          const { sessionsEnded } = await revokeUserSessions(context(request), request.params.id);
          await done(
            request,
            reply,
            `${sessionsEnded} session${sessionsEnded === 1 ? '' : 's'} ended.`,
          );
          return reply.redirect('/users', 303);
        }),
    );

    app.post<{ Params: { id: string } }>('/users/:id/disable', guard, async (request, reply) =>
      withPageErrors(request, reply, '/users', async () => {
        const user = await disableUser(context(request), request.params.id);
        await done(request, reply, `${user.email} disabled.`);
        return reply.redirect('/users', 303);
      }),
    );
  };
