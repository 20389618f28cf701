import { type Clock, systemClock } from '../clock.js';
import { createIdGenerator, type IdGenerator } from '../ids.js';
import type { Database } from '../storage/database.js';
import { type DemoContactColumns, insertDemoContacts } from '../stores/contact-store.js';
import { type DemoDealColumns, insertDemoDeals } from '../stores/deal-store.js';

/** Options of {@link seedDemoData}. */
export interface SeedDemoDataOptions {
  /** How many demo contacts to add (a deal is added for every second one). */
  contacts: number;
  /** Gives the timestamps; defaults to the system clock. */
  clock?: Clock;
  /** Gives the ids; defaults to a ULID generator on `clock`. */
  newId?: IdGenerator;
  /** Called after each batch with the contacts written so far and the total. */
  onProgress?: (done: number, total: number) => void;
}

/** What {@link seedDemoData} added. */
export interface SeededDemoData {
  /** Contacts added. */
  contacts: number;
  /** Deals added. */
  deals: number;
}

const firstNames = [
  'Ada',
  'Grace',
  'Alan',
  'Katherine',
  'Edsger',
  'Barbara',
  'Donald',
  'Frances',
  'Dennis',
  'Margaret',
  'Ken',
  'Radia',
  'Tim',
  'Hedy',
  'Claude',
  'Annie',
  'John',
  'Sophie',
  'Niklaus',
  'Joan',
];
const lastNames = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Johnson',
  'Dijkstra',
  'Liskov',
  'Knuth',
  'Allen',
  'Ritchie',
  'Hamilton',
  'Thompson',
  'Perlman',
  'Berners-Lee',
  'Lamarr',
  'Shannon',
  'Easley',
  'Backus',
  'Wilson',
  'Wirth',
  'Clarke',
];
const lifecycles = ['LEAD', 'PROSPECT', 'PATIENT', 'PATIENT', 'INACTIVE'];
const dealTitles = ['Annual check-up', 'Dental cleaning', 'Physiotherapy plan', 'Vaccination'];
const dealStages = ['OPEN', 'OPEN', 'WON', 'LOST'];
const batchSize = 500;

/**
 * Adds demo contacts, and a deal for every second one, straight into the database in batches of
 * 500 (one transaction each): a bulk load, so no events (`contact.created`, `deal.created`) are
 * written for them. The contacts are dated one minute apart, ending now, so they list before
 * anything created afterwards. Used by `followup-server seed` and `start --demo`.
 *
 * @example
 * ```ts
 * const added = await seedDemoData(database, { contacts: 300 });
 * // { contacts: 300, deals: 150 }
 * ```
 */
export async function seedDemoData(
  database: Database,
  options: SeedDemoDataOptions,
): Promise<SeededDemoData> {
  const total = options.contacts;
  if (!Number.isSafeInteger(total) || total < 0) {
    throw new RangeError('contacts must be a whole number, 0 or more.');
  }
  const clock = options.clock ?? systemClock;
  const newId = options.newId ?? createIdGenerator({ now: () => clock.now() });
  const end = clock.now();
  let deals = 0;
  for (let start = 0; start < total; start += batchSize) {
    const count = Math.min(batchSize, total - start);
    const contacts: DemoContactColumns = {
      id: [],
      first: [],
      last: [],
      lifecycle: [],
      email: [],
      at: [],
    };
    const batchDeals: DemoDealColumns = {
      id: [],
      contact: [],
      title: [],
      stage: [],
      amount: [],
      at: [],
    };
    for (let offset = 0; offset < count; offset++) {
      const index = start + offset;
      const first = firstNames[index % firstNames.length] as string;
      // Another last name once every first name has been used: 400 distinct full names.
      const last = lastNames[(index + Math.floor(index / firstNames.length)) % lastNames.length];
      const at = new Date(end - (total - 1 - index) * 60_000).toISOString();
      const id = newId('con');
      contacts.id.push(id);
      contacts.first.push(first);
      contacts.last.push(last as string);
      contacts.lifecycle.push(lifecycles[index % lifecycles.length] as string);
      contacts.email.push(
        `${first}.${last}.${index + 1}@example.com`.toLowerCase().replaceAll('-', ''),
      );
      contacts.at.push(at);
      if (index % 2 === 0) {
        batchDeals.id.push(newId('deal'));
        batchDeals.contact.push(id);
        batchDeals.title.push(dealTitles[(index / 2) % dealTitles.length] as string);
        batchDeals.stage.push(dealStages[(index / 2) % dealStages.length] as string);
        batchDeals.amount.push(String(5_000 + ((index * 7_919) % 95_000)));
        batchDeals.at.push(at);
      }
    }
    await database.transaction(async (transaction) => {
      await insertDemoContacts(transaction, contacts);
      if (batchDeals.id.length > 0) await insertDemoDeals(transaction, batchDeals);
    });
    deals += batchDeals.id.length;
    options.onProgress?.(start + count, total);
  }
  return { contacts: total, deals };
}
