import { contactSchema, dealSchema } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestServer } from '../../test/support/server.js';
import { seedDemoData } from './demo-data.js';

describe('seedDemoData', () => {
  const server = useTestServer();

  it('adds contacts and a deal for every second one, in batches, that the API serves', async () => {
    const progress: [number, number][] = [];
    const added = await seedDemoData(server().database, {
      contacts: 1001,
      clock: manualClock('2026-03-01T09:00:00.000Z'),
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(added).toEqual({ contacts: 1001, deals: 501 });
    expect(progress).toEqual([
      [500, 1001],
      [1000, 1001],
      [1001, 1001],
    ]);
    const { token } = await server().tokenFor('READONLY');
    const get = (url: string) =>
      server().app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect((await get('/api/contacts/count')).json()).toEqual({ count: 1001 });
    expect((await get('/api/deals/count')).json()).toEqual({ count: 501 });
    const contacts = (await get('/api/contacts?limit=200&offset=900')).json().contacts;
    for (const contact of contacts) expect(contactSchema.parse(contact)).toEqual(contact);
    // One minute apart, the last one now, oldest first.
    expect(contacts.at(-1).createdAt).toBe('2026-03-01T09:00:00.000Z');
    expect(contacts.at(-2).createdAt).toBe('2026-03-01T08:59:00.000Z');
    const deals = (await get('/api/deals?limit=200')).json().deals;
    for (const deal of deals) expect(dealSchema.parse(deal)).toEqual(deal);
    const emails = await server().database.query('SELECT DISTINCT email FROM contacts');
    expect(emails.rowCount).toBe(1001);
    // A bulk load: no events to deliver.
    expect((await server().database.query('SELECT id FROM outbox_events')).rows).toEqual([]);
  });

  it('adds nothing for zero, and refuses a count that is not a whole number', async () => {
    expect(await seedDemoData(server().database, { contacts: 0 })).toEqual({
      contacts: 0,
      deals: 0,
    });
    await expect(seedDemoData(server().database, { contacts: -1 })).rejects.toThrow(RangeError);
    await expect(seedDemoData(server().database, { contacts: 1.5 })).rejects.toThrow(RangeError);
  });
});
