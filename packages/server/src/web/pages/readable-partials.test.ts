import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineTemplate } from '../templates.js';
import { detailEntries, detailsPartial, idPartial } from './readable-partials.js';
import { shortId } from './short-id.js';

describe('detailEntries', () => {
  it('shows strings as they are, lists comma-separated, the rest as JSON, nothing as a dash', () => {
    expect(
      detailEntries({
        name: 'crm sync',
        events: ['contact.created', 'deal.updated'],
        overlapSeconds: 86_400,
        nested: { a: [1, { b: 2 }] },
        gone: null,
      }),
    ).toEqual([
      ['name', 'crm sync'],
      ['events', 'contact.created, deal.updated'],
      ['overlapSeconds', '86400'],
      ['nested', '{"a":[1,{"b":2}]}'],
      ['gone', '—'],
    ]);
  });

  it('keeps every key, in order, as text', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (details) => {
        const entries = detailEntries(details);
        expect(entries.map(([key]) => key)).toEqual(Object.keys(details));
        for (const [, text] of entries) expect(typeof text).toBe('string');
      }),
    );
  });
});

describe('the partials', () => {
  const template = defineTemplate<{
    id: string;
    href: string | null;
    details: [string, string][];
    shortId: (id: string) => string;
  }>(`${idPartial('it.id', { href: 'it.href' })}|${detailsPartial('it.details')}`);

  it('escapes the id and the details, and links only to a given path', () => {
    const html = template.render({
      id: '<b>"x"</b>_0123456789abcdef',
      href: null,
      details: [['<i>', '</dd><script>']],
      shortId,
    });
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<a ');
    expect(html).toContain('<dt>&lt;i&gt;</dt><dd>&lt;/dd&gt;&lt;script&gt;</dd>');
    expect(template.render({ id: 'dlv_1', href: '/deliveries/dlv_1', details: [], shortId })).toBe(
      '<span class="id" title="dlv_1"><a href="/deliveries/dlv_1"><code>dlv_1</code></a><button type="button" class="copy" data-copy-text="dlv_1" data-js-only aria-label="Copy dlv_1">Copy</button></span>|—',
    );
  });
});
