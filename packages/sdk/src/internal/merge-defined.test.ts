import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeDefined } from './merge-defined.js';

type Query = Record<string, string | undefined>;

describe('mergeDefined', () => {
  it('lets a later value win, but never an undefined one', () => {
    expect(
      mergeDefined<Query>({ sort: 'createdAt', debug: 'timing' }, { sort: undefined, limit: '2' }),
    ).toEqual({ sort: 'createdAt', debug: 'timing', limit: '2' });
    expect(mergeDefined<Query>({ sort: 'createdAt' }, undefined, { sort: '-createdAt' })).toEqual({
      sort: '-createdAt',
    });
    expect(mergeDefined<Query>({ q: undefined })).toEqual({});
  });

  it('gives each name the last defined value of any layer', () => {
    const layer = fc.dictionary(
      fc.constantFrom('sort', 'limit', 'debug', 'q', '__proto__', 'constructor'),
      fc.option(fc.string(), { nil: undefined }),
    );
    fc.assert(
      fc.property(fc.array(layer, { maxLength: 4 }), (layers) => {
        const merged = mergeDefined<Query>(...layers);
        const names = new Set(layers.flatMap((each) => Object.keys(each)));
        for (const name of names) {
          const defined = layers
            .map((each) => (Object.hasOwn(each, name) ? each[name] : undefined))
            .filter((value) => value !== undefined);
          if (defined.length === 0) expect(Object.hasOwn(merged, name)).toBe(false);
          else expect(merged[name]).toBe(defined.at(-1));
        }
        expect(Object.values(merged)).not.toContain(undefined);
      }),
    );
  });
});
