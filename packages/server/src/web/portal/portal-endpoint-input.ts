import type { z } from 'zod';
import { FollowUpServerError } from '../../errors.js';
import { ProblemError } from '../../problem-error.js';
import { textField, wholeTextField } from '../pages/page-helpers.js';
import type { EndpointFormValues } from './portal-endpoint-templates.js';
import { headerLines, listField, parseHeaderLines, parseRateLimit } from './portal-form-fields.js';

// The endpoint form of the portal, read into the API's input: checked by the API's own schema
// (`POST` and `PATCH /api/webhook-endpoints`), so that the form and the API refuse the same
// values with the same messages.

/** @internal The endpoint form's values as typed. */
export function formValues(body: unknown): EndpointFormValues {
  return {
    url: wholeTextField(body, 'url'),
    events: listField(body, 'events'),
    description: wholeTextField(body, 'description'),
    headers: textField(body, 'headers', 8_000),
    rateLimit: textField(body, 'rateLimit', 20),
  };
}

/** @internal An endpoint's values as the edit form shows them. */
export function valuesOf(endpoint: {
  url: string;
  events: readonly string[];
  description: string | null;
  headers: Record<string, string>;
  rateLimit: number | null;
}): EndpointFormValues {
  return {
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description ?? '',
    headers: headerLines(endpoint.headers),
    rateLimit: endpoint.rateLimit === null ? '' : String(endpoint.rateLimit),
  };
}

// The form's values as the API's input, checked by the API's own schema: the same limits and
// the same messages as `POST` and `PATCH /api/webhook-endpoints`.
/** @internal The form's values as the API's input, or 400 `validation_failed` naming the field. */
export function checkedInput<Schema extends z.ZodType>(
  schema: Schema,
  form: EndpointFormValues,
  add: boolean,
) {
  const headers = parseHeaderLines(form.headers);
  if (!headers.ok) {
    throw new ProblemError({
      code: 'validation_failed',
      detail: 'The request is not valid: see errors.',
      errors: [{ path: 'headers', message: headers.message }],
    });
  }
  const events = form.events.length > 0 ? form.events : add ? undefined : ['*'];
  const parsed = schema.safeParse({
    ...(add ? { url: form.url } : {}),
    ...(events ? { events } : {}),
    description: form.description === '' ? null : form.description,
    headers: headers.headers,
    rateLimit: parseRateLimit(form.rateLimit),
  });
  if (!parsed.success) {
    throw new ProblemError({
      code: 'validation_failed',
      detail: 'The request is not valid: see errors.',
      errors: parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      })),
    });
  }
  return parsed.data as z.output<Schema>;
}

/** @internal The message of a refusal to show beside the form; `undefined` for anything else. */
export function refusal(error: unknown): string | undefined {
  if (error instanceof ProblemError) {
    const fields = error.errors?.map((item) => `${item.path}: ${item.message}`).join('; ');
    return fields ? `${error.message} ${fields}` : error.message;
  }
  if (FollowUpServerError.isInstance(error) && !/not_found$/.test(error.code)) return error.message;
  return undefined;
}
