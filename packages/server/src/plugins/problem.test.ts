import { PROBLEM_CODES, type ProblemCode } from '@followup/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProblemError } from '../problem-error.js';
import { toProblem } from './problem.js';

const codes = Object.keys(PROBLEM_CODES) as ProblemCode[];

describe('ProblemError', () => {
  it('answers with the status the catalogue gives its code, for every code', () => {
    for (const code of codes) {
      const problem = new ProblemError({ code, detail: 'What went wrong.' });
      expect({ code, status: problem.status }).toEqual({
        code,
        status: PROBLEM_CODES[code].status,
      });
    }
  });

  it('takes no status of its own: the code decides it', () => {
    // @ts-expect-error a status is not an option; PROBLEM_CODES gives it.
    const problem = new ProblemError({ status: 418, code: 'not_found', detail: 'No such thing.' });
    expect(problem.status).toBe(404);
  });

  it('maps any error a request can end in to a code answered with its catalogue status', () => {
    const fastifyCodes = fc.constantFrom(
      undefined,
      'FST_ERR_CTP_BODY_TOO_LARGE',
      'FST_ERR_CTP_INVALID_MEDIA_TYPE',
      'FST_ERR_CTP_INVALID_JSON_BODY',
      'FST_ERR_CTP_EMPTY_JSON_BODY',
      'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
      'database_busy',
      '57014',
      '22021',
      '22P05',
      'FST_ERR_SOMETHING_NEW',
    );
    fc.assert(
      fc.property(
        fastifyCodes,
        fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
        (code, statusCode) => {
          const problem = toProblem(Object.assign(new Error('quoted body'), { code, statusCode }));
          expect(problem.status).toBe(PROBLEM_CODES[problem.code].status);
          expect(problem.message).not.toContain('quoted body');
        },
      ),
    );
  });

  it('answers a client error Fastify raises without a known code 400 bad_request', () => {
    const problem = toProblem(Object.assign(new Error('x'), { statusCode: 405 }));
    expect({ status: problem.status, code: problem.code }).toEqual({
      status: 400,
      code: 'bad_request',
    });
  });
});
