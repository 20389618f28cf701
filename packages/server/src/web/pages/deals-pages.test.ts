import { describe, expect, it } from 'vitest';
import { consoleBrowser } from '../../../test/support/console.js';
import { useTestServer } from '../../../test/support/server.js';
import { dealAmount } from './deals-pages.js';

describe('Deals pages', () => {
  const server = useTestServer();

  async function createDeals(
    stages: readonly string[],
    title: (index: number) => string = (index) => `Deal ${index}`,
  ): Promise<{ contactId: string; ids: string[] }> {
    const { token } = await server().tokenFor('ADMIN');
    const headers = { authorization: `Bearer ${token}` };
    const contact = await server().app.inject({
      method: 'POST',
      url: '/api/contacts',
      headers,
      payload: { firstName: 'Ada', lastName: 'Lovelace' },
    });
    const contactId = contact.json().id;
    const ids: string[] = [];
    for (const [index, stage] of stages.entries()) {
      const response = await server().app.inject({
        method: 'POST',
        url: '/api/deals',
        headers,
        payload: {
          contactId,
          title: title(index),
          stage,
          amountCents: 100 * index,
          currency: 'EUR',
        },
      });
      expect(response.statusCode).toBe(201);
      ids.push(response.json().id);
      server().clock.advance(1000);
    }
    return { contactId, ids };
  }

  const titlesOn = (html: string) =>
    [...html.matchAll(/<a href="\/deals\/deal_[0-9A-Z]+">([^<]*)<\/a>/g)].map((m) => m[1]);

  it('lists deals newest first, filters by stage, counts them and pages both ways', async () => {
    const stages = Array.from({ length: 52 }, (_, index) => (index % 4 === 0 ? 'WON' : 'OPEN'));
    await createDeals(stages);
    const browser = await consoleBrowser(server(), 'READONLY');
    const first = await browser.get('/deals');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('<a href="/deals" aria-current="page">Deals</a>');
    expect(first.body).toContain('Read-only: changes are made through the API.');
    expect(first.body).toContain('<strong>52 deals</strong>');
    expect(titlesOn(first.body)[0]).toBe('Deal 51');
    expect(titlesOn(first.body)).toHaveLength(50);
    const next = /<a href="([^"]+)">Next page<\/a>/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    const second = await browser.get(next ?? '');
    expect(titlesOn(second.body)).toEqual(['Deal 1', 'Deal 0']);
    const previous = /<a href="([^"]+)">Previous page<\/a>/
      .exec(second.body)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(titlesOn((await browser.get(previous ?? '')).body)).toEqual(titlesOn(first.body));

    const won = await browser.get('/deals?stage=WON');
    expect(won.body).toContain('<strong>13 deals</strong> in this stage');
    expect(titlesOn(won.body)).toEqual(
      stages.flatMap((stage, index) => (stage === 'WON' ? [`Deal ${index}`] : [])).reverse(),
    );
    expect((await browser.get('/deals?stage=LOST')).body).toContain('No deal is in this stage.');
    expect((await browser.get('/deals?stage=MAYBE')).statusCode).toBe(400);
  });

  it('searches titles as the API does, with the stage, counts the matches and keeps them in links', async () => {
    const stages = Array.from({ length: 56 }, (_, index) => (index % 2 === 0 ? 'WON' : 'OPEN'));
    // 54 renewals (two pages of WON and OPEN ones) and two others.
    const title = (index: number) => (index < 54 ? `Renewal ${index}` : `Annual plan ${index}`);
    await createDeals(stages, title);
    const browser = await consoleBrowser(server(), 'READONLY');

    const first = await browser.get('/deals?q=RENEWAL');
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('role="search"');
    expect(first.body).toContain('value="RENEWAL"');
    expect(first.body).toContain('<strong>54 deals</strong> match');
    expect(titlesOn(first.body)).toHaveLength(50);
    expect(titlesOn(first.body)[0]).toBe('Renewal 53');
    // The same rows as GET /api/deals?q= answers, newest first.
    const { token } = await server().tokenFor('READONLY');
    const api = await server().app.inject({
      url: '/api/deals?q=RENEWAL&limit=100&sort=-createdAt',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(titlesOn(first.body)).toEqual(
      api
        .json()
        .deals.slice(0, 50)
        .map((deal: { title: string }) => deal.title),
    );
    const next = /<a href="([^"]+)">Next page<\/a>/.exec(first.body)?.[1]?.replaceAll('&amp;', '&');
    expect(next).toMatch(/^\/deals\?q=RENEWAL&after=/);
    expect(titlesOn((await browser.get(next ?? '')).body)).toEqual([
      'Renewal 3',
      'Renewal 2',
      'Renewal 1',
      'Renewal 0',
    ]);

    const won = await browser.get('/deals?q=renewal&stage=WON');
    expect(won.body).toContain('<strong>27 deals</strong> match');
    expect(won.body).toContain('<option value="WON" selected>WON</option>');
    const wonNext = /<a href="([^"]+)">Next page<\/a>/
      .exec(won.body)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(wonNext).toBeUndefined();
    expect(titlesOn((await browser.get('/deals?q=annual')).body)).toEqual([
      'Annual plan 55',
      'Annual plan 54',
    ]);
    // A link made for one search is refused by another.
    const other = await browser.get((next ?? '').replace('q=RENEWAL', 'q=RENEW'));
    expect(other.statusCode).toBe(400);
    expect(other.body).toContain('made for other filters');
    const none = await browser.get('/deals?q=zz');
    expect(none.body).toContain('No deal matches.');
    expect(none.body).toContain('<strong>0 deals</strong> match');
    for (const bad of [`/deals?q=${'a'.repeat(101)}`, '/deals?q=a%00b']) {
      const response = await browser.get(bad);
      expect(response.statusCode, bad).toBe(400);
      expect(response.headers['content-type'], bad).toMatch(/^text\/html/);
    }
  });

  it("shows a deal's fields with its contact linked; an unknown id is the 404 page", async () => {
    const { contactId, ids } = await createDeals(['OPEN', 'OPEN']);
    const browser = await consoleBrowser(server(), 'AGENT');
    const page = await browser.get(`/deals/${ids[1]}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Deal 1</h1>');
    expect(page.body).toContain('<dt>Amount</dt><dd>€1.00</dd>');
    expect(page.body).toContain(`<a href="/contacts/${contactId}">`);
    expect((await browser.get('/deals/deal_NOTHING')).statusCode).toBe(404);
  });
});

describe('dealAmount', () => {
  it('writes an amount in its currency, and an unknown code as it is', () => {
    expect(dealAmount({ amountCents: 125000, currency: 'USD' })).toBe('$1,250.00');
    expect(dealAmount({ amountCents: 5, currency: 'EUR' })).toBe('€0.05');
    expect(dealAmount({ amountCents: 1250, currency: 'XQ1' })).toBe('12.50 XQ1');
  });
});
