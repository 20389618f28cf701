import type { FastifySchemaCompiler } from 'fastify';
import { type core, safeParse, type z } from 'zod';

/**
 * A zod issue as an error map receives it: with the value that failed (`input`) and its path
 * from the root of what was parsed.
 */
type RawIssue = core.$ZodRawIssue;

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/** How a type zod expected reads in a sentence. */
const expectedNouns: Record<string, string> = {
  int: 'whole number',
  number: 'number',
  string: 'string',
  boolean: 'boolean (true or false)',
  object: 'object',
  array: 'array',
  bigint: 'whole number',
  date: 'date',
  null: 'null',
};

/** How a format zod checks reads in a sentence. */
const formatNouns: Record<string, string> = {
  email: 'e-mail address',
  url: 'URL',
  datetime: 'ISO 8601 date and time, such as 2026-03-01T09:00:00Z',
  date: 'ISO 8601 date, such as 2026-03-01',
  uuid: 'UUID',
};

function sizeOf(origin: string, count: number | bigint): string {
  if (origin === 'string') return `${count} character${count === 1 ? '' : 's'}`;
  if (origin === 'array' || origin === 'set') return `${count} item${count === 1 ? '' : 's'}`;
  return String(count);
}

/**
 * What is wrong with a value, as the predicate of a sentence whose subject is the field:
 * `is required`, `must be a string`, `must be one of OPEN, WON, LOST`. Never zod's own wording
 * ("Invalid input: expected string, received undefined"), which names neither the field nor
 * what to send.
 */
function predicateOf(issue: RawIssue): string {
  // A field that is absent fails on its type, its values (an enumeration) or every branch.
  const absentAs = ['invalid_type', 'invalid_value', 'invalid_union'];
  if (issue.input === undefined && absentAs.includes(issue.code ?? '')) return 'is required';
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.expected === 'nonoptional') return 'is required';
      if (issue.expected === 'never') return 'is not allowed here';
      const noun = expectedNouns[issue.expected] ?? issue.expected;
      return `must be ${article(noun)}`;
    }
    case 'too_small': {
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      if (issue.origin === 'array' && Number(issue.minimum) === 1) {
        return 'must have at least 1 item';
      }
      const verb = issue.origin === 'string' || issue.origin === 'array' ? 'have' : 'be';
      const bound = issue.inclusive === false ? 'more than' : 'at least';
      return `must ${verb} ${bound} ${sizeOf(issue.origin, issue.minimum)}`;
    }
    case 'too_big': {
      const verb = issue.origin === 'string' || issue.origin === 'array' ? 'have' : 'be';
      const bound = issue.inclusive === false ? 'less than' : 'at most';
      return `must ${verb} ${bound} ${sizeOf(issue.origin, issue.maximum)}`;
    }
    case 'invalid_format':
      return `must be ${article(formatNouns[issue.format] ?? issue.format)}`;
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_value': {
      const values = issue.values.map((value) =>
        typeof value === 'string' ? value : JSON.stringify(value),
      );
      return values.length === 1
        ? `must be ${values[0]}`
        : `must be one of ${values.join(', ')} (case-sensitive)`;
    }
    case 'unrecognized_keys':
      return 'is not a field of this request';
    case 'invalid_union': {
      // A union of a value and a list of them (a repeatable query parameter), or of shapes: the
      // branch the value was meant for is the one that failed on more than its type.
      const branches = issue.errors as core.$ZodRawIssue[][];
      const meant = branches.find(
        (issues) => issues.length > 0 && !issues.every((inner) => inner.code === 'invalid_type'),
      );
      const inner = meant?.[0];
      if (inner) return predicateOf({ ...inner, input: inner.input ?? issue.input } as RawIssue);
      const nouns = branches.flatMap((issues) =>
        issues[0]?.code === 'invalid_type'
          ? [article(expectedNouns[issues[0].expected] ?? issues[0].expected)]
          : [],
      );
      return nouns.length > 0 ? `must be ${[...new Set(nouns)].join(' or ')}` : 'is not valid';
    }
    case 'invalid_key':
      return 'has a key that is not valid';
    case 'invalid_element':
      return 'has an item that is not valid';
    default:
      return 'is not valid';
  }
}

/**
 * The message of a validation issue of a request: the field's path, then what is wrong with it
 * (`firstName is required`, `steps.0.action must be a string`); `subject` stands for the value
 * itself when the issue is at the root (`the request body must be an object`). Messages that a
 * schema writes itself (`limit must be a whole number from 1 to 200`) are kept: zod calls an
 * error map only for the issues that have none.
 *
 * @example
 * ```ts
 * createContactInputSchema.safeParse(body, { error: validationErrorMap('the request body') });
 * ```
 */
export function validationMessage(issue: RawIssue, subject = 'the request body'): string {
  const path = (issue.path ?? []).map(String).join('.');
  return `${path === '' ? subject : path} ${predicateOf(issue)}`;
}

/**
 * The error map of every request the server validates: {@link validationMessage} with this
 * subject for the root.
 */
export function validationErrorMap(subject: string): (issue: RawIssue) => string {
  return (issue) => validationMessage(issue, subject);
}

const requestErrorMap = validationErrorMap('the request body');

/**
 * @internal The validator of every route schema: the zod schema parses the body, query string
 * or parameters, with {@link validationMessage} for the messages. The issues take the shape
 * Fastify passes to the error handler (`validation`), which `plugins/problem.ts` turns into the
 * `errors` of a 400 `validation_failed`.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = safeParse(schema, data, { error: requestErrorMap });
    if (!result.error) return { value: result.data };
    return {
      error: result.error.issues.map((issue) => {
        const { path, code, message, ...params } = issue;
        return {
          keyword: code,
          instancePath: `/${path.join('/')}`,
          schemaPath: `#/${path.join('/')}/${code}`,
          message,
          params,
        };
      }),
    } as never;
  };
