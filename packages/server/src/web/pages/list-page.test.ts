import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineTemplate } from '../templates.js';
import {
  labelCells,
  listPage,
  listTable,
  MAX_PAGE_OFFSET,
  offsetField,
  PAGE_SIZE,
  paging,
  pagingPartial,
} from './list-page.js';

describe('list pages', () => {
  it('reads an offset as a whole number from 0 to the maximum, and anything else as 0', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.nat().map(String), fc.integer().map(String)), (text) => {
        const offset = offsetField({ offset: text });
        expect(Number.isSafeInteger(offset)).toBe(true);
        expect(offset).toBeGreaterThanOrEqual(0);
        expect(offset).toBeLessThanOrEqual(MAX_PAGE_OFFSET);
        // Like every text field: its first 7 characters, without the spaces around them.
        const read = text.slice(0, 7).trim();
        expect(offset).toBe(/^\d{1,6}$/.test(read) ? Math.min(Number(read), MAX_PAGE_OFFSET) : 0);
      }),
    );
    expect(offsetField({ offset: '50' })).toBe(50);
    expect(offsetField({ offset: ' 50\t' })).toBe(50);
    expect(offsetField({ offset: '5 0' })).toBe(0);
    expect(offsetField({ offset: '999999' })).toBe(MAX_PAGE_OFFSET);
    expect(offsetField({ offset: '-5' })).toBe(0);
  });

  it('links the pages before and after, keeping the filters, never past the maximum', () => {
    expect(paging('/deliveries', { state: 'dead', endpoint: '' }, 0, PAGE_SIZE)).toEqual({
      previous: null,
      next: `/deliveries?state=dead&offset=${PAGE_SIZE}`,
    });
    expect(paging('/deliveries', {}, PAGE_SIZE, 3)).toEqual({
      previous: '/deliveries',
      next: null,
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: MAX_PAGE_OFFSET }),
        fc.integer({ min: 0, max: PAGE_SIZE }),
        fc.dictionary(fc.string(), fc.string()),
        (offset, count, filters) => {
          const links = paging('/x', filters, offset, count);
          for (const link of [links.previous, links.next]) {
            if (link === null) continue;
            expect(link.startsWith('/x')).toBe(true);
            const at = Number(new URL(link, 'http://h').searchParams.get('offset') ?? '0');
            expect(at).toBeLessThanOrEqual(MAX_PAGE_OFFSET);
          }
        },
      ),
    );
  });

  it('asks for a page of PAGE_SIZE rows at the query offset, and links on with the filters', () => {
    const page = listPage({ offset: '100', state: 'ignored' }, '/deliveries', { state: 'dead' });
    expect([page.limit, page.offset]).toEqual([PAGE_SIZE, 100]);
    expect(page.paging(PAGE_SIZE)).toEqual({
      previous: `/deliveries?state=dead&offset=${100 - PAGE_SIZE}`,
      next: `/deliveries?state=dead&offset=${100 + PAGE_SIZE}`,
    });
    expect(listPage(undefined, '/users').paging(3)).toEqual({ previous: null, next: null });
  });

  it('writes the empty state without rows, otherwise a table with a row per item, escaped', () => {
    const template = defineTemplate<{
      people: { name: string }[];
      paging: { previous: string | null; next: string | null };
    }>(
      listTable({
        rows: 'people',
        row: 'person',
        columns: ['Name'],
        cells: '<td><%= person.name %></td>',
        empty: 'Nobody yet. Invite someone.',
        caption: '<caption>People</caption>',
        label: 'People',
      }) + pagingPartial,
    );
    const none = { previous: null, next: null };
    expect(template.render({ people: [], paging: none })).toBe(
      '\n<p class="notice">Nobody yet. Invite someone.</p>\n\n',
    );
    const table = template.render({
      people: [{ name: '<b>Ada</b>' }],
      paging: { previous: null, next: '/people?offset=50' },
    });
    expect(table).toContain(
      '<div class="table-scroll" role="region" aria-label="People" tabindex="0">\n<table>\n<caption>People</caption>\n<thead><tr><th scope="col">Name</th></tr></thead>',
    );
    expect(table).toContain('<tr>\n<td>&lt;b&gt;Ada&lt;/b&gt;</td>\n</tr>');
    expect(table).toContain('<a href="/people?offset=50">Next page</a>');
  });

  it('labels each cell of a card table with its column, in order, and nothing else', () => {
    const template = defineTemplate<{ people: { name: string; role: string }[] }>(
      listTable({
        rows: 'people',
        row: 'person',
        columns: ['Name', 'Role <abbr>"r"</abbr>'],
        cells: '<td><%= person.name %></td>\n<td class="muted"><%= person.role %></td>',
        empty: 'Nobody yet.',
        label: 'People',
        narrow: 'cards',
      }),
    );
    const table = template.render({ people: [{ name: 'Ada', role: 'ADMIN' }] });
    expect(table).toContain('<table class="cards">');
    expect(table).toContain(
      '<td data-label="Name">Ada</td>\n<td data-label="Role &quot;r&quot;" class="muted">ADMIN</td>',
    );
    // Cells that do not match the columns one to one are left alone.
    expect(labelCells('<td>a</td>', ['A', 'B'])).toBe('<td>a</td>');
    // Whatever the cells, taking the labels out again gives them back unchanged.
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('<td>', '<td class="x">', '<tdx>', 'text', '<thead>', '</td>')),
        fc.array(fc.string({ maxLength: 8 }), { maxLength: 6 }),
        (parts, columns) => {
          const cells = parts.join('');
          const labelled = labelCells(cells, columns);
          expect(labelled.replace(/ data-label="[^"]*"/g, '')).toBe(cells);
        },
      ),
    );
  });
});
