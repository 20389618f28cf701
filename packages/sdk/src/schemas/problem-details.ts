import { z } from 'zod';

/**
 * Schema of one field error of a `validation_failed` problem.
 *
 * @example
 * ```ts
 * fieldErrorSchema.parse({ path: 'firstName', message: 'Required' });
 * ```
 */
export const fieldErrorSchema = z.looseObject({
  /** Where in the request the problem is: a dotted path or a list of keys. */
  path: z.union([z.string(), z.array(z.union([z.string(), z.number()]))]),
  /** What is wrong there. */
  message: z.string(),
});

/**
 * One field error of a `validation_failed` problem.
 *
 * @example
 * ```ts
 * const error: FieldError = { path: 'email', message: 'Invalid email address' };
 * ```
 */
export type FieldError = z.infer<typeof fieldErrorSchema>;

/**
 * Schema of an error body, `application/problem+json` (RFC 9457):
 * `{ type, title, status, detail, code, requestId, errors? }`. Every member is optional when
 * parsing, because a proxy in front of the service may answer with less.
 *
 * @example
 * ```ts
 * const problem = problemDetailsSchema.parse({ status: 404, code: 'not_found', title: 'Not Found' });
 * ```
 */
export const problemDetailsSchema = z.looseObject({
  /** A URI that identifies the kind of problem. */
  type: z.string().optional(),
  /** A short summary of the kind of problem. */
  title: z.string().optional(),
  /** The HTTP status. */
  status: z.number().int().optional(),
  /** What went wrong this time. */
  detail: z.string().optional(),
  /** The machine-readable code, e.g. `token_expired` or `validation_failed`. */
  code: z.string().optional(),
  /** The request id, also sent as the `X-Request-Id` header. */
  requestId: z.string().optional(),
  /** For `validation_failed`: which fields are wrong. */
  errors: z.array(fieldErrorSchema).optional(),
});

/**
 * An error body as the service sends it.
 *
 * @example
 * ```ts
 * if (APIError.isInstance(error)) console.log(error.body?.detail);
 * ```
 */
export type ProblemDetails = z.infer<typeof problemDetailsSchema>;

/**
 * Schema of an error body exactly as the service sends it, every member present (`errors` only
 * for `validation_failed`): what the server answers and documents in its OpenAPI document as
 * `Problem`. Clients parse with the lenient {@link problemDetailsSchema} instead, because a proxy
 * in front of the service may answer with less.
 *
 * @example
 * ```ts
 * const problem: ProblemResponse = problemResponseSchema.parse(await response.json());
 * ```
 */
export const problemResponseSchema = z
  .object({
    /** `urn:followup:problem:<code>`. */
    type: z.string().describe('urn:followup:problem:<code>'),
    /** The HTTP status text. */
    title: z.string().describe('The HTTP status text'),
    /** The HTTP status, repeated. */
    status: z.number().int(),
    /** What went wrong with this request. */
    detail: z.string(),
    /** The machine-readable code: one of `PROBLEM_CODES`. */
    code: z.string().describe('Machine-readable, such as token_expired or validation_failed'),
    /** Equal to the `X-Request-Id` response header. */
    requestId: z.string().describe('Equal to the X-Request-Id response header'),
    /** The invalid fields, for `validation_failed`. */
    errors: z
      .array(
        z.object({
          /** The field's path in the body, query or path parameters, dot-separated. */
          path: z.string(),
          /** What is wrong with it. */
          message: z.string(),
        }),
      )
      .optional()
      .describe('The invalid fields, for validation_failed'),
  })
  .describe('RFC 9457 problem details (application/problem+json)');

/**
 * An error body as the service sends it: `{ type, title, status, detail, code, requestId,
 * errors? }`, `type` being `urn:followup:problem:<code>`.
 *
 * @example
 * ```ts
 * const body: ProblemResponse = { type: 'urn:followup:problem:not_found', title: 'Not Found',
 *   status: 404, detail: 'No contact has this id.', code: 'not_found', requestId: 'req_1' };
 * ```
 */
export type ProblemResponse = z.infer<typeof problemResponseSchema>;
