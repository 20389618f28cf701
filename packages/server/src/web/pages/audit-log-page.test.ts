import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { useTestServer } from '../../../test/support/server.js';
import type { Database } from '../../storage/database.js';
import { shortId } from './short-id.js';

// The statements the page sends that read actors' names.
const nameReads: string[] = [];

describe('Audit log page: readable', () => {
  const server = useTestServer({
    wrapDatabase: (database): Database => ({
      ...database,
      query: (sql, params) => {
        if (/FROM users WHERE id = ANY/.test(sql)) nameReads.push(sql);
        return database.query(sql, params);
      },
    }),
  });

  it('names actors, linked, with their kind in words, read in one statement per page', async () => {
    const { accounts } = server();
    const admin = await consoleBrowser(server(), 'ADMIN', { name: 'Ada Lovelace' });
    const bot = await accounts.createAccount({ name: 'crm sync', role: 'ADMIN' });
    for (let index = 0; index < 3; index++) {
      await accounts.createAccount({
        name: `by ada ${index}`,
        role: 'AGENT',
        actor: { type: 'user', id: admin.session.userId },
      });
      await accounts.createAccount({
        name: `by bot ${index}`,
        role: 'AGENT',
        actor: { type: 'service_account', id: bot.id },
      });
    }
    await accounts.createAccount({
      name: 'by a removed user',
      role: 'AGENT',
      actor: { type: 'user', id: 'usr_01J9Z3B4C5D6E7F8G9H0J1K2M3' },
    });
    nameReads.length = 0;
    const page = (await admin.get('/audit-log')).body;
    expect(nameReads).toHaveLength(1);
    const cells = [...page.matchAll(/<td><span class="actor">([\s\S]*?)<\/span><\/td>/g)].map(
      (match) => match[1]?.replace(/<span class="muted kind">/, '').replace(/<\/span>$/, ''),
    );
    expect(new Set(cells)).toEqual(
      new Set([
        `<a href="/audit-log?actor=${admin.session.userId}">Ada Lovelace</a> (user)`,
        `<a href="/service-accounts/${bot.id}">crm sync</a> (service account)`,
        `<a href="/audit-log?actor=usr_01J9Z3B4C5D6E7F8G9H0J1K2M3">usr_01J9…2M3</a> (user)`,
        'operator',
      ]),
    );
  });

  it('shows an action whole, target ids shortened, and details as a key/value list', async () => {
    const { accounts } = server();
    const account = await accounts.createAccount({ name: 'crm sync', role: 'AGENT' });
    const browser = await consoleBrowser(server(), 'ADMIN');
    const page = (await browser.get('/audit-log')).body;
    expect(page).toContain('<code class="action">service_account.created</code>');
    expect(page).toContain(
      `service account <span class="id" title="${account.id}"><a href="/service-accounts/${account.id}"><code>${shortId(account.id)}</code></a>`,
    );
    expect(page).toMatch(
      /<dl class="details"><dt>name<\/dt><dd>crm sync<\/dd><dt>role<\/dt><dd>AGENT<\/dd>/,
    );
    expect(page).not.toContain('{&quot;');
  });

  it('links a service account only for a role that may open its page', async () => {
    const { accounts } = server();
    const account = await accounts.createAccount({ name: 'crm sync', role: 'AGENT' });
    await accounts.createAccount({
      name: 'by it',
      role: 'AGENT',
      actor: { type: 'service_account', id: account.id },
    });
    const manager = await consoleBrowser(server(), 'MANAGER');
    const page = (await manager.get('/audit-log')).body;
    expect(page).toContain(`<a href="/audit-log?actor=${account.id}">crm sync</a>`);
    expect(page).not.toContain('href="/service-accounts/');
  });
});
