import { ERASED_VALUE } from '@followup/sdk';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test/support/clock.js';
import { useTestDatabase } from '../../test/support/database.js';
import { createEndpointStore } from '../delivery/webhook-endpoints.js';
import { eraseContact } from '../erasure/contact-erasure.js';
import { createIdGenerator } from '../ids.js';
import { dealChangeOrder } from '../storage/change-order.js';
import { contactTable } from './contact-store.js';
import { readContactTimeline } from './contact-timeline-store.js';
import { dealStorage, listContactDeals } from './deal-store.js';
import { resourceStore } from './resource-store.js';

describe('readContactTimeline (on the database under test)', () => {
  const database = useTestDatabase();
  const clock = manualClock('2026-03-01T09:00:00.000Z');
  const newId = createIdGenerator({ now: () => clock.now() });
  const actor = { type: 'service_account' as const, id: 'sa_1' };
  const contacts = resourceStore(contactTable({ clock, newId }), { clock, newId });
  // Deals as their routes store them: deletes audited, every change announced.
  const deals = resourceStore(
    {
      name: 'deal',
      collection: 'deals',
      idPrefix: 'deal',
      ...dealStorage,
      defaults: { stage: 'OPEN' },
      changes: { order: dealChangeOrder },
      audited: { created: false, updated: false, deleted: true },
      events: {},
    },
    { clock, newId },
  );

  /** A contact with a deal that was later won, a minute between each change. */
  async function contactWithDeal(firstName: string) {
    const contact = (
      await contacts.createRecord(database(), { actor, body: { firstName, lastName: 'Lovelace' } })
    ).item;
    clock.advance(60_000);
    const deal = (
      await deals.createRecord(database(), {
        actor,
        body: {
          contactId: contact.id,
          title: `${firstName}'s knee`,
          amountCents: 1000,
          currency: 'USD',
        },
      })
    ).item;
    clock.advance(60_000);
    await database().transaction((transaction) =>
      deals.updateRecord(transaction, { actor, id: String(deal.id), body: { stage: 'WON' } }),
    );
    clock.advance(60_000);
    return { contactId: String(contact.id), dealId: String(deal.id) };
  }

  it("answers the contact's audit entries, events and deliveries, and its deals', newest first", async () => {
    const { contactId, dealId } = await contactWithDeal('Ada');
    await contactWithDeal('Grace');
    const endpoint = (
      await createEndpointStore({ database: database(), clock, newId }).add({
        url: 'https://hooks.example.com/',
      })
    ).id;
    const { rows } = await database().query<{ id: string }>(
      `SELECT id FROM outbox_events WHERE event = 'deal.updated' AND data->>'id' = $1`,
      [dealId],
    );
    const delivery = newId('dlv');
    await database().query(
      `INSERT INTO deliveries (id, event_id, endpoint_id, state, attempts, last_status, created_at)
       VALUES ($1, $2, $3, 'delivered', 1, 204, $4)`,
      [delivery, rows[0]?.id, endpoint, new Date(clock.now())],
    );

    const timeline = await readContactTimeline(database(), { contactId, limit: 50 });
    expect(timeline.more).toBe(false);
    expect(
      timeline.entries.map((entry) => [
        entry.kind,
        entry.name,
        entry.subject.type,
        entry.subject.id,
      ]),
    ).toEqual([
      ['delivery', 'deal.updated', 'deal', dealId],
      ['event', 'deal.updated', 'deal', dealId],
      ['event', 'deal.created', 'deal', dealId],
      // The create's event and audit entry share a time: ties go by id, newest first (evt_ > aud_).
      ['event', 'contact.created', 'contact', contactId],
      ['audit', 'contact.created', 'contact', contactId],
    ]);
    expect(timeline.entries[0]).toMatchObject({
      id: delivery,
      at: '2026-03-01T09:06:00.000Z',
      delivery: { endpointId: endpoint, state: 'delivered', attempts: 1, lastStatus: 204 },
    });
    const created = timeline.entries.find((entry) => entry.kind === 'audit');
    expect(created).toMatchObject({ actor, at: '2026-03-01T09:00:00.000Z' });
    expect(timeline.entries[1]?.details).toMatchObject({ id: dealId, stage: 'WON' });

    // A reader without the audit log and the deliveries sees the events alone.
    const events = await readContactTimeline(database(), {
      contactId,
      limit: 50,
      kinds: ['event'],
    });
    expect(events.entries).toEqual(timeline.entries.filter((entry) => entry.kind === 'event'));
  });

  it('answers the newest `limit` entries and says that there are more', async () => {
    const { contactId } = await contactWithDeal('Ada');
    const all = await readContactTimeline(database(), { contactId, limit: 50 });
    expect(all.entries).toHaveLength(4);
    const newest = await readContactTimeline(database(), { contactId, limit: 2 });
    expect(newest).toEqual({ entries: all.entries.slice(0, 2), more: true });
    expect((await readContactTimeline(database(), { contactId, limit: 4 })).more).toBe(false);
  });

  it('keeps the timeline of an erased contact, its values "[erased]"', async () => {
    const { contactId, dealId } = await contactWithDeal('Ada');
    await eraseContact({ database: database(), clock, newId, actor }, contactId);
    const timeline = await readContactTimeline(database(), { contactId, limit: 50 });
    const names = timeline.entries.map((entry) => `${entry.kind} ${entry.name}`);
    // The erasure's entries and those of the deletes it ran, at one time, ahead of the rest.
    expect(names.slice(0, 5).sort()).toEqual([
      'audit contact.deleted',
      'audit contact.erased',
      'event contact.deleted',
      'event contact.erased',
      'event deal.deleted',
    ]);
    const created = timeline.entries.find(
      (entry) => entry.kind === 'event' && entry.name === 'contact.created',
    );
    expect(created?.details).toMatchObject({ firstName: ERASED_VALUE, lastName: ERASED_VALUE });
    const dealCreated = timeline.entries.find(
      (entry) => entry.kind === 'event' && entry.name === 'deal.created',
    );
    expect(dealCreated?.details).toMatchObject({ id: dealId, title: ERASED_VALUE });
    expect(JSON.stringify(timeline)).not.toMatch(/Ada|Lovelace/);
  });

  it('answers nothing for an id nothing mentions', async () => {
    await contactWithDeal('Ada');
    expect(await readContactTimeline(database(), { contactId: 'con_none', limit: 50 })).toEqual({
      entries: [],
      more: false,
    });
  });
});

describe('listContactDeals (on the database under test)', () => {
  const database = useTestDatabase();
  const clock = manualClock('2026-03-01T09:00:00.000Z');
  const newId = createIdGenerator({ now: () => clock.now() });
  const actor = { type: 'service_account' as const, id: 'sa_1' };
  const contacts = resourceStore(contactTable({ clock, newId }), { clock, newId });

  it("answers the contact's deals newest first, at most `limit`, and how many it has", async () => {
    const ada = String(
      (
        await contacts.createRecord(database(), {
          actor,
          body: { firstName: 'Ada', lastName: 'L' },
        })
      ).item.id,
    );
    const other = String(
      (await contacts.createRecord(database(), { actor, body: { firstName: 'Bo', lastName: 'B' } }))
        .item.id,
    );
    const ids: string[] = [];
    for (const [index, contactId] of [ada, other, ada, ada].entries()) {
      const id = newId('deal');
      if (contactId === ada) ids.push(id);
      await database().query(
        `INSERT INTO deals (id, contact_id, title, stage, amount_cents, currency, created_at, updated_at)
         VALUES ($1, $2, $3, 'OPEN', 100, 'USD', $4, $4)`,
        [id, contactId, `Deal ${index}`, new Date(clock.now())],
      );
      clock.advance(1000);
    }
    const two = await listContactDeals(database(), { contactId: ada, limit: 2 });
    expect(two.total).toBe(3);
    expect(two.deals.map((deal) => deal.id)).toEqual([ids[2], ids[1]]);
    expect(two.deals[0]).toMatchObject({ contactId: ada, title: 'Deal 3', amountCents: 100 });
    expect(await listContactDeals(database(), { contactId: 'con_none', limit: 2 })).toEqual({
      deals: [],
      total: 0,
    });
  });
});
