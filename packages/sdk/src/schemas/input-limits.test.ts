import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  boundedJson,
  boundedText,
  createCampaignInputSchema,
  createContactInputSchema,
  createDealInputSchema,
  createSequenceInputSchema,
  createUserInputSchema,
  INPUT_LIMITS,
  inboxSendInputSchema,
  isStorableText,
  updateContactInputSchema,
} from '../index.js';

const seed = 20261123;

function nested(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

function paths(result: z.ZodSafeParseResult<unknown>): string[] {
  return result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'));
}

describe('isStorableText', () => {
  it('is true exactly for well-formed strings without NUL', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (value) => {
        expect(isStorableText(value)).toBe(value.isWellFormed() && !value.includes('\u0000'));
      }),
      { seed, numRuns: 500 },
    );
    expect(isStorableText('\uD83D\uDE00')).toBe(true); // a pair
    expect(isStorableText('\uD83D')).toBe(false);
    expect(isStorableText('\uDE00a')).toBe(false);
    expect(isStorableText('a\uDE00\uD83D')).toBe(false); // in the wrong order
  });

  it('runs in linear time on a long string (no backtracking)', () => {
    expect(isStorableText('\uD800'.repeat(500_000))).toBe(false);
    expect(isStorableText('\uD83D\uDE00'.repeat(250_000))).toBe(true);
  });
});

describe('boundedText', () => {
  it('accepts min to max storable characters and nothing else', () => {
    const schema = boundedText({ min: 1, max: 5 });
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 8 }), (value) => {
        const points = [...value].length;
        const ok = points >= 1 && points <= 5 && isStorableText(value);
        expect(schema.safeParse(value).success).toBe(ok);
      }),
      { seed, numRuns: 500 },
    );
  });

  it('shows its bounds in JSON Schema', () => {
    expect(z.toJSONSchema(boundedText({ min: 1, max: 7 }))).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 7,
    });
  });
});

describe('boundedJson', () => {
  it('accepts JSON within the bounds', () => {
    const value = { a: [1, 'two', { three: null, four: true }], b: 'x'.repeat(100) };
    expect(boundedJson().parse(value)).toEqual(value);
  });

  it('refuses nesting past jsonDepth, however deep, without exhausting the stack', () => {
    const limit = INPUT_LIMITS.jsonDepth;
    expect(boundedJson().safeParse(JSON.parse(nested(limit))).success).toBe(true);
    expect(boundedJson().safeParse(JSON.parse(nested(limit + 1))).success).toBe(false);
    const deep = boundedJson().safeParse(JSON.parse(nested(200_000)));
    expect(deep.success).toBe(false);
    expect(paths(deep)).toEqual([Array(limit).fill('0').join('.')]);
  });

  it('names the path of each string, field name, array or object over a bound', () => {
    const result = boundedJson().safeParse({
      long: 'x'.repeat(INPUT_LIMITS.jsonString + 1),
      nul: ['ok', 'a\u0000b'],
      lone: { deeper: '\uD800' },
      many: Array(INPUT_LIMITS.jsonItems + 1).fill(0),
      'bad\u0000key': 1,
    });
    expect(paths(result).sort()).toEqual(['bad\u0000key', 'lone.deeper', 'long', 'many', 'nul.1']);
  });

  it('never throws on any JSON value, and reports at most ten issues', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), (value) => {
        const result = boundedJson().safeParse(value);
        if (!result.success) expect(result.error.issues.length).toBeLessThanOrEqual(10);
      }),
      { seed, numRuns: 500 },
    );
  });
});

describe('request schemas', () => {
  it('refuse NUL and unpaired surrogates in every text field, naming it', () => {
    const bad = ['a\u0000b', 'a\uD800b', '\uDFFF'];
    const cases: [z.ZodType, Record<string, unknown>, string[]][] = [
      [
        createContactInputSchema,
        { firstName: 'A', lastName: 'B', lifecycle: 'LEAD', phone: '1' },
        ['firstName', 'lastName', 'lifecycle', 'phone'],
      ],
      [updateContactInputSchema, { firstName: 'A', lifecycle: 'LEAD' }, ['firstName', 'lifecycle']],
      [
        createDealInputSchema,
        { contactId: 'con_1', title: 'T', stage: 'OPEN', amountCents: 1, currency: 'USD' },
        ['contactId', 'title', 'stage'],
      ],
      [
        createSequenceInputSchema,
        { name: 'S', status: 'DRAFT', steps: [{ action: 'EMAIL', delayHours: 0, template: 't' }] },
        ['name', 'status'],
      ],
      [createCampaignInputSchema, { name: 'C', status: 'DRAFT' }, ['name', 'status']],
      [
        createUserInputSchema,
        { email: 'a@example.com', name: 'N', role: 'ADMIN' },
        ['name', 'email'],
      ],
      [
        inboxSendInputSchema,
        { from: 'a@example.com', subject: 'S', text: 'T' },
        ['from', 'subject', 'text'],
      ],
    ];
    for (const [schema, valid, fields] of cases) {
      expect(schema.safeParse(valid).success).toBe(true);
      for (const field of fields) {
        for (const value of bad) {
          expect(paths(schema.safeParse({ ...valid, [field]: value }))).toEqual([field]);
        }
      }
    }
    const step = (extra: Record<string, unknown>) => ({
      name: 'S',
      steps: [{ action: 'EMAIL', delayHours: 0, ...extra }],
    });
    expect(paths(createSequenceInputSchema.safeParse(step({ action: 'E\u0000' })))).toEqual([
      'steps.0.action',
    ]);
    expect(paths(createSequenceInputSchema.safeParse(step({ template: '\uD800' })))).toEqual([
      'steps.0.template',
    ]);
    expect(paths(createSequenceInputSchema.safeParse(step({ note: { x: 'a\u0000' } })))).toEqual([
      'steps.0.note.x',
    ]);
    expect(paths(createSequenceInputSchema.safeParse(step({ 'k\u0000': 1 })))).toEqual([
      'steps.0.k\u0000',
    ]);
  });

  it('refuse every string, array and number one past its limit, naming the field', () => {
    const over = (limit: number) => 'x'.repeat(limit + 1);
    expect(
      paths(
        createContactInputSchema.safeParse({
          firstName: over(INPUT_LIMITS.name),
          lastName: over(INPUT_LIMITS.name),
          lifecycle: over(INPUT_LIMITS.enumValue),
          email: `${'a'.repeat(INPUT_LIMITS.email)}@example.com`,
          phone: over(INPUT_LIMITS.phone),
        }),
      ).sort(),
    ).toEqual(['email', 'firstName', 'lastName', 'lifecycle', 'phone']);
    expect(
      paths(
        createDealInputSchema.safeParse({
          contactId: over(INPUT_LIMITS.id),
          title: over(INPUT_LIMITS.name),
          stage: over(INPUT_LIMITS.enumValue),
          amountCents: 1,
          currency: 'USD',
        }),
      ).sort(),
    ).toEqual(['contactId', 'stage', 'title']);
    expect(
      paths(
        inboxSendInputSchema.safeParse({
          from: over(INPUT_LIMITS.inboxFrom),
          subject: over(INPUT_LIMITS.inboxSubject),
          text: over(INPUT_LIMITS.inboxText),
        }),
      ).sort(),
    ).toEqual(['from', 'subject', 'text']);
    const step = { action: 'EMAIL', delayHours: 0 };
    expect(
      paths(
        createSequenceInputSchema.safeParse({
          name: 'S',
          steps: Array(INPUT_LIMITS.sequenceSteps + 1).fill(step),
        }),
      ),
    ).toEqual(['steps']);
    expect(
      paths(
        createSequenceInputSchema.safeParse({
          name: 'S',
          steps: [
            {
              action: over(INPUT_LIMITS.enumValue),
              delayHours: INPUT_LIMITS.stepDelayHours + 1,
              template: over(INPUT_LIMITS.stepTemplate),
            },
          ],
        }),
      ).sort(),
    ).toEqual(['steps.0.action', 'steps.0.delayHours', 'steps.0.template']);
    const manyFields = Object.fromEntries(
      Array.from({ length: INPUT_LIMITS.stepFields }, (_, index) => [`f${index}`, index]),
    );
    expect(
      paths(
        createSequenceInputSchema.safeParse({ name: 'S', steps: [{ ...step, ...manyFields }] }),
      ),
    ).toEqual(['steps.0']);
  });

  it('show the limits in JSON Schema', () => {
    const schema = z.toJSONSchema(createSequenceInputSchema, { io: 'input' }) as {
      properties: Record<string, { maxLength?: number; maxItems?: number }>;
    };
    expect(schema.properties.name?.maxLength).toBe(INPUT_LIMITS.name);
    expect(schema.properties.steps?.maxItems).toBe(INPUT_LIMITS.sequenceSteps);
  });
});
