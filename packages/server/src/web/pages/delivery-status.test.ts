import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANSWER_START_LENGTH, answerStart, deliveryStatus, prettyJson } from './delivery-status.js';

describe('deliveryStatus', () => {
  it('says in words whether a delivery arrived, waits, is retried or is dead', () => {
    expect(deliveryStatus({ state: 'delivered', attempts: 1 })).toEqual({
      label: 'Delivered',
      tone: 'ok',
    });
    expect(deliveryStatus({ state: 'pending', attempts: 0 }).label).toBe('Waiting');
    expect(deliveryStatus({ state: 'pending', attempts: 2 })).toEqual({
      label: 'Retrying',
      tone: 'warning',
    });
    expect(deliveryStatus({ state: 'dead', attempts: 8 })).toEqual({
      label: 'Dead',
      tone: 'danger',
    });
  });
});

describe('prettyJson', () => {
  it('indents JSON by two spaces and leaves other text as it is', () => {
    expect(prettyJson('{"a":1,"b":[true]}')).toBe('{\n  "a": 1,\n  "b": [\n    true\n  ]\n}');
    expect(prettyJson('not json {')).toBe('not json {');
  });

  it('keeps the value of any JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(JSON.parse(prettyJson(text))).toEqual(JSON.parse(text));
      }),
    );
  });
});

describe('answerStart', () => {
  it('keeps a short answer whole and cuts a long one with an ellipsis', () => {
    expect(answerStart(null)).toBe('');
    expect(answerStart('ok')).toBe('ok');
    const long = 'x'.repeat(ANSWER_START_LENGTH + 1);
    expect(answerStart(long)).toBe(`${'x'.repeat(ANSWER_START_LENGTH)}…`);
  });

  it('is a prefix of the answer, never cutting a character in half', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (answer) => {
        const start = answerStart(answer).replace(/…$/, '');
        expect(answer.startsWith(start)).toBe(true);
        expect([...start].length).toBeLessThanOrEqual(ANSWER_START_LENGTH);
        expect(Buffer.from(start, 'utf8').toString('utf8')).toBe(start);
      }),
    );
  });
});
