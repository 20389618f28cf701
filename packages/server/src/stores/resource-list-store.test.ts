import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/support/database.js';
import { contactStorage } from './contact-store.js';
import { countKeysetRows, type KeysetListSource, readKeysetPage } from './resource-list-store.js';
import { itemColumns, itemFromRow } from './resource-rows.js';

// Contacts as their list reads them: the lifecycle filter and the `q` prefix search.
const contacts: KeysetListSource = {
  table: 'contacts',
  columns: itemColumns(contactStorage),
  filters: {
    oneOf: {
      parameter: 'lifecycle',
      column: 'lifecycle',
      values: ['LEAD', 'CUSTOMER'],
      open: true,
    },
    email: 'email',
    search: { columns: ['first_name', 'last_name', 'email'], description: 'A prefix' },
  },
  toItem: (row) => itemFromRow(contactStorage, row),
};

const people = [
  ['Ada', 'Lovelace', 'LEAD', 'ada@example.com'],
  ['Adam', 'Smith', 'CUSTOMER', 'adam@example.com'],
  ['Grace', 'Hopper', 'LEAD', 'g.hopper@example.com'],
  ['Alan', 'Adams', 'LEAD', null],
  ['Émile', 'Zola', 'CUSTOMER', 'ez@example.com'],
] as const;

describe('countKeysetRows (on the database under test)', () => {
  const database = useTestDatabase();

  async function seed() {
    for (const [index, [first, last, lifecycle, email]] of people.entries()) {
      await database().query(
        `INSERT INTO contacts (id, first_name, last_name, lifecycle, email, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6)`,
        [`con_${index}`, first, last, lifecycle, email, `2026-03-01T09:00:0${index}Z`],
      );
    }
  }

  async function everyRow(request: { q?: string; oneOf?: string[] }) {
    return readKeysetPage(database(), {
      source: contacts,
      request: { kind: 'createdAt', descending: false, limit: 100, ...request },
    });
  }

  it('counts the rows the pages of the same filters hold, for any search and lifecycle', async () => {
    await seed();
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.constantFrom('a', 'AD', 'ada', 'h', 'g.', 'é', 'É', 'z', 'x', 'ada@'), {
          nil: undefined,
        }),
        fc.option(fc.subarray(['LEAD', 'CUSTOMER', 'OTHER'], { minLength: 1 }), { nil: undefined }),
        async (q, oneOf) => {
          const request = {
            ...(q === undefined ? {} : { q }),
            ...(oneOf === undefined ? {} : { oneOf }),
          };
          const rows = await everyRow(request);
          expect(await countKeysetRows(database(), { source: contacts, request })).toBe(
            rows.length,
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('counts as the API searches: a case-insensitive prefix of a name or the e-mail', async () => {
    await seed();
    const count = (request: { q?: string; oneOf?: string[] }) =>
      countKeysetRows(database(), { source: contacts, request });
    expect(await count({})).toBe(5);
    // Ada, Adam, and Alan Adams by his last name; never a match inside a word (Grace Hopper).
    expect(await count({ q: 'ad' })).toBe(3);
    expect(await count({ q: 'ad', oneOf: ['LEAD'] })).toBe(2);
    expect(await count({ q: 'g.hop' })).toBe(1);
    expect(await count({ q: 'race' })).toBe(0);
    expect(await count({ oneOf: ['CUSTOMER'] })).toBe(2);
  });

  it('reads a page before a position, newest first, for a Previous page', async () => {
    await seed();
    const rows = await readKeysetPage(database(), {
      source: contacts,
      request: {
        kind: 'createdAt',
        descending: true,
        position: { kind: 'createdAt', createdAt: '2026-03-01T09:00:03.000000Z', id: 'con_3' },
        limit: 2,
      },
    });
    expect(rows.map((row) => row.id)).toEqual(['con_2', 'con_1', 'con_0']);
  });
});
