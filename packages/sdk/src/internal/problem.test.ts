import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseProblem } from './problem.js';

describe('parseProblem', () => {
  it('reads a problem+json body', () => {
    const body = {
      type: 'https://followup.example.com/problems/validation_failed',
      title: 'Bad Request',
      status: 400,
      detail: 'firstName is required',
      code: 'validation_failed',
      requestId: 'req_1',
      errors: [{ path: 'firstName', message: 'Required' }],
      extra: 'kept',
    };
    expect(parseProblem(JSON.stringify(body), 'application/problem+json; charset=utf-8')).toEqual(
      body,
    );
  });

  it('keeps the well-typed members of a partly broken body', () => {
    const text = JSON.stringify({ code: 42, title: 'Oops', status: '500', detail: 'd' });
    expect(parseProblem(text, 'application/json')).toEqual({ title: 'Oops', detail: 'd' });
  });

  it('returns undefined for empty, non-JSON, non-object or non-JSON-typed bodies', () => {
    expect(parseProblem('', 'application/json')).toBeUndefined();
    expect(parseProblem('<html>502</html>', 'text/html')).toBeUndefined();
    expect(parseProblem('{"code":"x"}', 'text/plain')).toBeUndefined();
    expect(parseProblem('not json', 'application/json')).toBeUndefined();
    expect(parseProblem('[1,2]', 'application/json')).toBeUndefined();
    expect(parseProblem('null', null)).toBeUndefined();
  });

  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((value) => JSON.stringify(value)),
        ),
        fc.constantFrom(null, '', 'application/json', 'application/problem+json', 'text/html'),
        (text, contentType) => {
          const problem = parseProblem(text, contentType);
          if (problem !== undefined) {
            expect(typeof problem).toBe('object');
            if (problem.code !== undefined) expect(typeof problem.code).toBe('string');
            if (problem.status !== undefined) expect(Number.isInteger(problem.status)).toBe(true);
          }
        },
      ),
    );
  });
});
