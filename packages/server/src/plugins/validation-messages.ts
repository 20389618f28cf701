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
      return `has no field named ${issue.keys.join(', ')}`;
    case 'invalid_union': {
      // A union of a value and a list of them (a repeatable query parameter), or of shapes: the
      // branch the value was meant for is the one that failed on more than its type.
      const branches = issue.errors as core.$ZodRawIssue[][];
      const meant = branches.find(
        (issues) => issues.length > 0 && !issues.every((inner) => inner.code === 'invalid_type'),
      );
      const inner = meant?.[0];
      // A schema's own words (a refinement's message) say it better than its code.
      if (inner?.code === 'custom' && inner.message) return inner.message;
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
 * Whether a message is a predicate (`must not contain NUL characters…`, as the SDK's schemas
 * write theirs and the error map writes every one), to follow the field's name; a message that
 * names its field already (`limit must be a whole number from 1 to 200`) is a whole sentence.
 */
const isPredicate = (message: string) => /^(must|is|are|has|should) /.test(message);

/**
 * The error map of every request the server validates, for the issues whose schema wrote no
 * message of its own: what is wrong, as a predicate (`is required`, `must be a number`), never
 * zod's wording. {@link validationErrors} puts the field's name before it.
 *
 * @example
 * ```ts
 * const result = createContactInputSchema.safeParse(body, { error: validationErrorMap });
 * ```
 */
export function validationErrorMap(issue: RawIssue): string {
  return predicateOf(issue);
}

/** One invalid field: its path (`steps.0.action`) and a sentence naming it. */
export type ValidationError = {
  /** The field's path: `firstName`, `steps.0.action`; empty for the value itself. */
  path: string;
  /** A sentence that names the field and says what to send. */
  message: string;
};

/**
 * The sentence of each issue of a failed parse: the field's path, then what is wrong with it
 * (`firstName is required`, `steps.0.action must be a string`), `subject` standing for the value
 * itself when the issue is at its root (`the request body must be an object`). A message the
 * schema wrote as a whole sentence is kept as it is.
 *
 * @example
 * ```ts
 * const result = schema.safeParse(item, { error: validationErrorMap });
 * if (!result.success) return validationErrors(result.error.issues, 'the contact');
 * ```
 */
export function validationErrors(
  issues: readonly core.$ZodIssue[],
  subject: string,
): ValidationError[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    const named = path === '' ? subject : path;
    return {
      path,
      message: isPredicate(issue.message) ? `${named} ${issue.message}` : issue.message,
    };
  });
}

/**
 * @internal The validator of every route schema: the zod schema parses the body, query string
 * or parameters, with {@link validationErrorMap} and {@link validationErrors} for the messages.
 * The issues take the shape Fastify passes to the error handler (`validation`), which
 * `plugins/problem.ts` turns into the `errors` of a 400 `validation_failed`.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = safeParse(schema, data, { error: validationErrorMap });
    if (!result.error) return { value: result.data };
    const sentences = validationErrors(result.error.issues, 'the request body');
    return {
      error: result.error.issues.map((issue, index) => {
        const { path, code, message: _, ...params } = issue;
        return {
          keyword: code,
          instancePath: `/${path.join('/')}`,
          schemaPath: `#/${path.join('/')}/${code}`,
          message: sentences[index]?.message,
          params,
        };
      }),
    } as never;
  };
