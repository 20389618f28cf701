import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { useTestServer } from '../../../test/support/server.js';

describe('Contacts pages', () => {
  const server = useTestServer();

  /** Creates contacts through the API, a second apart, oldest first; answers their ids. */
  async function createContacts(
    bodies: readonly Record<string, unknown>[],
    role: 'ADMIN' | 'AGENT' = 'ADMIN',
  ): Promise<string[]> {
    const { token } = await server().tokenFor(role);
    const ids: string[] = [];
    for (const body of bodies) {
      const response = await server().app.inject({
        method: 'POST',
        url: '/api/contacts',
        headers: { authorization: `Bearer ${token}` },
        payload: body,
      });
      expect(response.statusCode).toBe(201);
      ids.push(response.json().id);
      server().clock.advance(1000);
    }
    return ids;
  }

  const namesOn = (html: string) =>
    [...html.matchAll(/<a href="\/contacts\/con_[0-9A-Z]+">([^<]*)<\/a>/g)].map((m) => m[1]);

  it('is in the navigation (every role reads contacts), read-only, with an empty state', async () => {
    const readonly = await consoleBrowser(server(), 'READONLY');
    const home = await readonly.get('/contacts');
    expect(home.statusCode).toBe(200);
    expect(home.body).toContain('<a href="/contacts" aria-current="page">Contacts</a>');
    expect(home.body).toContain('<a href="/deals">Deals</a>');
    expect(home.body).toContain('Read-only: changes are made through the API.');
    expect(home.body).toContain('No contacts yet.');
    expect(home.body).toContain('<strong>0 contacts</strong>');
  });

  it('searches as the API does, filters by lifecycle, counts the matches and pages both ways', async () => {
    const bodies = Array.from({ length: 53 }, (_, index) => ({
      firstName: index % 2 === 0 ? `Ada${index}` : `Grace${index}`,
      lastName: 'Tester',
      lifecycle: index % 3 === 0 ? 'PATIENT' : 'LEAD',
      email: `person${index}@example.com`,
    }));
    await createContacts(bodies);
    const browser = await consoleBrowser(server(), 'READONLY');

    const first = await browser.get('/contacts');
    expect(first.body).toContain('<strong>53 contacts</strong>');
    const firstNames = namesOn(first.body);
    expect(firstNames).toHaveLength(50);
    // Newest first.
    expect(firstNames[0]).toBe('Ada52 Tester');
    expect(first.body).not.toContain('Previous page');
    const next = /<a href="([^"]+)">Next page<\/a>/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toMatch(/^\/contacts\?after=/);

    const second = await browser.get(next ?? '');
    expect(namesOn(second.body)).toEqual(['Ada2 Tester', 'Grace1 Tester', 'Ada0 Tester']);
    expect(second.body).not.toContain('Next page');
    const previous = /<a href="([^"]+)">Previous page<\/a>/
      .exec(second.body)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(previous).toMatch(/^\/contacts\?before=/);
    const back = await browser.get(previous ?? '');
    expect(namesOn(back.body)).toEqual(firstNames);
    expect(back.body).not.toContain('Previous page');

    // q: a case-insensitive prefix of a name or the e-mail, as GET /api/contacts?q= reads it.
    const { token } = await server().tokenFor('READONLY');
    const api = await server().app.inject({
      url: '/api/contacts?q=ADA1&limit=100',
      headers: { authorization: `Bearer ${token}` },
    });
    const apiNames = api
      .json()
      .contacts.map((contact: { firstName: string }) => `${contact.firstName} Tester`)
      .reverse();
    const searched = await browser.get('/contacts?q=ADA1');
    expect(namesOn(searched.body)).toEqual(apiNames);
    expect(searched.body).toContain(`<strong>${apiNames.length} contacts</strong> match`);
    expect(searched.body).toContain('value="ADA1"');

    const patients = await browser.get('/contacts?q=ada&lifecycle=PATIENT');
    const expected = bodies
      .filter((body) => body.firstName.startsWith('Ada') && body.lifecycle === 'PATIENT')
      .map((body) => `${body.firstName} Tester`)
      .reverse();
    expect(namesOn(patients.body)).toEqual(expected);
    expect(patients.body).toContain(`<strong>${expected.length} contacts</strong> match`);
    expect(patients.body).toContain('<option value="PATIENT" selected>PATIENT</option>');

    const none = await browser.get('/contacts?q=zz');
    expect(none.body).toContain('No contact matches.');
  });

  it('keeps the filters in the paging links, and refuses a link of other filters with a 400 page', async () => {
    await createContacts(
      Array.from({ length: 51 }, (_, index) => ({ firstName: `Ada${index}`, lastName: 'L' })),
    );
    const browser = await consoleBrowser(server(), 'AGENT');
    const first = await browser.get('/contacts?q=ada&lifecycle=LEAD');
    const next = /<a href="([^"]+)">Next page<\/a>/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toMatch(/^\/contacts\?q=ada&lifecycle=LEAD&after=/);
    const second = await browser.get(next ?? '');
    expect(namesOn(second.body)).toEqual(['Ada0 L']);
    const other = await browser.get((next ?? '').replace('q=ada', 'q=ad'));
    expect(other.statusCode).toBe(400);
    expect(other.body).toContain('made for other filters');
    for (const bad of [
      '/contacts?after=nonsense',
      '/contacts?after=a&before=b',
      '/contacts?lifecycle=DRAGON',
      `/contacts?q=${'a'.repeat(101)}`,
      '/contacts?q=a%00b',
    ]) {
      const response = await browser.get(bad);
      expect(response.statusCode, bad).toBe(400);
      expect(response.headers['content-type'], bad).toMatch(/^text\/html/);
    }
  });

  it("shows a contact's fields, its deals linked, and its timeline newest first", async () => {
    const [id] = await createContacts([
      {
        firstName: 'Ada',
        lastName: 'Lovelace',
        email: 'ada@example.com',
        phone: '+44 20 7946 0000',
      },
    ]);
    const { token } = await server().tokenFor('ADMIN');
    const deal = await server().app.inject({
      method: 'POST',
      url: '/api/deals',
      headers: { authorization: `Bearer ${token}` },
      payload: { contactId: id, title: 'Knee surgery', amountCents: 125000, currency: 'USD' },
    });
    const dealId = deal.json().id;
    server().clock.advance(1000);
    await server().app.inject({
      method: 'PATCH',
      url: `/api/deals/${dealId}`,
      headers: { authorization: `Bearer ${token}` },
      payload: { stage: 'WON' },
    });

    const admin = await consoleBrowser(server(), 'ADMIN');
    const page = await admin.get(`/contacts/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Ada Lovelace</h1>');
    expect(page.body).toContain('Read-only: changes are made through the API.');
    expect(page.body).toContain('<dt>E-mail</dt><dd>ada@example.com</dd>');
    expect(page.body).toContain('<dt>Phone</dt><dd>+44 20 7946 0000</dd>');
    expect(page.body).toContain(`<a href="/deals/${dealId}">Knee surgery</a>`);
    expect(page.body).toContain('$1,250.00');
    const timeline = page.body.slice(page.body.indexOf('<h2 id="timeline">Timeline</h2>'));
    const names = [...timeline.matchAll(/<\/strong> <code class="no-break">([^<]+)<\/code>/g)].map(
      (match) => match[1],
    );
    expect(names).toEqual(['deal.updated', 'deal.created', 'contact.created', 'contact.created']);
    expect(timeline).toContain('Audit entry');
    // No stored value in an href: only our own paths, built from ids.
    for (const [, href] of page.body.matchAll(/href="([^"]*)"/g)) {
      expect(href).toMatch(/^\/[a-z-]*(\/(con|deal|dlv)_[0-9A-Z]+)?$|^\/assets\/|^#main$/);
    }

    // A role that may not read the audit log sees the events alone, and says so.
    const agent = await consoleBrowser(server(), 'AGENT');
    const agentPage = await agent.get(`/contacts/${id}`);
    expect(agentPage.body).not.toContain('Audit entry');
    expect(agentPage.body).toContain('(the entries your role may read)');
  });

  it('shows an erased contact as "[erased]", and answers the 404 page for an id nothing has', async () => {
    const [id] = await createContacts([
      { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
    ]);
    const { token } = await server().tokenFor('ADMIN');
    const erased = await server().app.inject({
      method: 'POST',
      url: `/api/contacts/${id}/erase`,
      headers: { authorization: `Bearer ${token}` },
    });
    expect(erased.statusCode).toBe(200);
    const browser = await consoleBrowser(server(), 'ADMIN');
    const page = await browser.get(`/contacts/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Erased contact</h1>');
    expect(page.body).toContain('This contact was deleted and erased.');
    expect(page.body).toContain('<dt>First name</dt><dd>[erased]</dd>');
    expect(page.body).not.toMatch(/Ada|Lovelace|ada@example\.com/);

    for (const missing of [
      '/contacts/con_NOTHING',
      '/contacts/%00',
      `/contacts/${'x'.repeat(300)}`,
    ]) {
      const response = await browser.get(missing);
      expect(response.statusCode, missing).toBe(404);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('sends a signed-out visitor to sign-in and back', async () => {
    const { app } = server();
    const signedOut = await app.inject({ url: '/contacts/con_1' });
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe('/signin?next=%2Fcontacts%2Fcon_1');
  });
});
