// Destructive row actions (disable, revoke, remove) lead to a confirm page first: its GET
// changes nothing, and only its form's POST does the action.
import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { useTestServer } from '../../../test/support/server.js';
import { createEndpointStore } from '../../delivery/webhook-endpoints.js';
import { createIdGenerator } from '../../ids.js';
import { getUserInfo, inviteUser } from '../../users/user-actions.js';

function formOf(html: string): { action: string; button: string } | undefined {
  const match =
    /<form method="post" action="([^"]+)" class="inline">[\s\S]*?<button type="submit" class="danger">([^<]+)<\/button>/.exec(
      html,
    );
  return match ? { action: match[1] ?? '', button: match[2] ?? '' } : undefined;
}

describe('confirm pages of destructive row actions', () => {
  const server = useTestServer();

  it('confirms Disable and Revoke sessions of a user before doing either', async () => {
    const { database, clock } = server();
    const newId = createIdGenerator({ now: () => clock.now() });
    const browser = await consoleBrowser(server(), 'ADMIN');
    const invitation = await inviteUser(
      { database, clock, newId, actor: { type: 'operator' } },
      { email: 'ada@example.com', role: 'AGENT', publicUrl: 'http://localhost' },
    );
    const list = await browser.get('/users');
    expect(list.body).toContain(
      `<form method="get" action="/users/${invitation.id}/disable" class="inline">`,
    );
    expect(list.body).toContain(
      '<summary>More<span class="visually-hidden"> actions for ada@example.com</span></summary>',
    );

    const confirm = await browser.get(`/users/${invitation.id}/disable`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('<h1>Disable ada@example.com?</h1>');
    expect(formOf(confirm.body)).toEqual({
      action: `/users/${invitation.id}/disable`,
      button: 'Disable user',
    });
    expect(confirm.body).toContain('<a href="/users">Cancel</a>');
    expect((await getUserInfo(database, invitation.id))?.state).toBe('invited');

    const sessions = await browser.get(`/users/${invitation.id}/sessions/revoke`);
    expect(sessions.body).toContain('<h1>Revoke the sessions of ada@example.com?</h1>');
    expect(formOf(sessions.body)?.button).toBe('Revoke sessions');

    expect((await browser.post(`/users/${invitation.id}/disable`)).statusCode).toBe(303);
    expect((await getUserInfo(database, invitation.id))?.state).toBe('disabled');
    expect((await browser.get('/users/usr_missing/disable')).statusCode).toBe(404);
  });

  it('confirms Disable account, and Disable endpoint keeping where it came back to', async () => {
    const { accounts, database, clock } = server();
    const newId = createIdGenerator({ now: () => clock.now() });
    const browser = await consoleBrowser(server(), 'ADMIN');
    const account = await accounts.createAccount({ name: 'crm sync', role: 'AGENT' });
    const page = await browser.get(`/service-accounts/${account.id}`);
    expect(page.body).toContain(
      `<form method="get" action="/service-accounts/${account.id}/disable">`,
    );
    const confirm = await browser.get(`/service-accounts/${account.id}/disable`);
    expect(confirm.body).toContain('<h1>Disable crm sync?</h1>');
    expect(formOf(confirm.body)?.button).toBe('Disable account');
    expect((await accounts.getAccount(account.id))?.disabledAt).toBeNull();

    const endpoint = await createEndpointStore({ database, clock, newId }).add({
      url: 'https://crm.example.com/hooks',
    });
    const disable = await browser.get(`/webhook-endpoints/${endpoint.id}/disable?back=detail`);
    expect(disable.body).toContain(`<h1>Disable endpoint ${endpoint.id}?</h1>`);
    expect(disable.body).toContain('<input type="hidden" name="back" value="detail">');
    expect(disable.body).toContain(`<a href="/webhook-endpoints/${endpoint.id}">Cancel</a>`);
    const done = await browser.post(`/webhook-endpoints/${endpoint.id}/disable`, {
      back: 'detail',
    });
    expect(done.headers.location).toBe(`/webhook-endpoints/${endpoint.id}`);
    expect((await createEndpointStore({ database, clock, newId }).get(endpoint.id))?.state).toBe(
      'disabled',
    );
  });
});
