import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isProblemCode,
  PROBLEM_CODES,
  type ProblemCode,
  problemCodesOf,
  problemType,
} from './problem-codes.js';

const codes = Object.keys(PROBLEM_CODES) as ProblemCode[];

describe('the problem codes of the wire contract', () => {
  it('gives every code an error status, codes in snake_case', () => {
    for (const code of codes) {
      const { status } = PROBLEM_CODES[code];
      expect(code).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
      expect(status >= 400 && status <= 599 && STATUS_CODES[status] !== undefined, code).toBe(true);
    }
  });

  it('names the type of a problem urn:followup:problem:<code>', () => {
    expect(problemType('token_expired')).toBe('urn:followup:problem:token_expired');
  });

  it('knows its own codes and nothing else, inherited names included', () => {
    for (const code of codes) expect(isProblemCode(code)).toBe(true);
    for (const other of [
      'constructor',
      'toString',
      '__proto__',
      'hasOwnProperty',
      '',
      'NOT_FOUND',
    ]) {
      expect(isProblemCode(other)).toBe(false);
    }
    fc.assert(
      fc.property(fc.anything(), (value) => {
        expect(isProblemCode(value)).toBe(
          typeof value === 'string' && codes.includes(value as never),
        );
      }),
    );
  });

  it('lists, per status, the codes of the route’s scope, else those of any route', () => {
    expect(problemCodesOf(401, 'bearer')).toEqual([
      'token_missing',
      'token_malformed',
      'token_invalid',
      'token_expired',
      'token_revoked',
    ]);
    expect(problemCodesOf(401, 'inbox')).toEqual(['webhook_secret_invalid']);
    expect(problemCodesOf(401, 'ehr')).toEqual(['signature_invalid']);
    expect(problemCodesOf(401, 'any')).toEqual([]);
    expect(problemCodesOf(404, 'ehr')).toEqual(['unknown_vendor']);
    expect(problemCodesOf(404, 'bearer')).toEqual(['not_found']);
    // Codes of the transport (the router, the HTTP parser, the server's own faults) never show.
    expect(problemCodesOf(400, 'bearer')).toEqual([
      'validation_failed',
      'invalid_json',
      'bad_request',
    ]);
    expect(problemCodesOf(503, 'any')).toEqual(['unavailable']);
    expect(problemCodesOf(500, 'any')).toEqual([]);
  });
});

describe('docs/api-contract.md', () => {
  it('names every problem code, under its status', () => {
    const contract = readFileSync(
      new URL('../../../../docs/api-contract.md', import.meta.url),
      'utf8',
    );
    const errors = contract.slice(contract.indexOf('## Errors'));
    const rows = new Map(
      [...errors.matchAll(/^\| (\d{3}) \| (.*) \|$/gm)].map((row) => [
        Number(row[1]),
        [...(row[2] as string).matchAll(/`([a-z_]+)`/g)].map((code) => code[1]),
      ]),
    );
    for (const code of codes) {
      expect(rows.get(PROBLEM_CODES[code].status), code).toContain(code);
    }
    const documented = [...rows.values()].flat().filter((name) => name !== 'errors');
    expect(documented.filter((name) => !isProblemCode(name))).toEqual([]);
  });
});
