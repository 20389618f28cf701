// What the portal's forms send, read into the values the actions take. Each reader only
// reshapes text; the limits are checked by the SDK's schemas (the API's own), so a form and the
// API refuse the same values with the same messages.

/** @internal A position in a keyset list: the last row of a page. */
export interface PortalCursor {
  createdAt: string;
  id: string;
}

const cursorShape = /^[0-9T:. +-]{10,40}\|[A-Za-z0-9_]{1,64}$/;

/** @internal The `after` query parameter of the page that follows `cursor`. */
export function encodePortalCursor(cursor: PortalCursor): string {
  return Buffer.from(`${cursor.createdAt}|${cursor.id}`, 'utf8').toString('base64url');
}

/**
 * @internal The position an `after` parameter names, or `undefined` for anything that is not one
 * {@link encodePortalCursor} made (the list then starts at the beginning).
 */
export function decodePortalCursor(text: string): PortalCursor | undefined {
  if (text === '' || text.length > 200 || !/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  if (!cursorShape.test(decoded)) return undefined;
  const separator = decoded.lastIndexOf('|');
  const createdAt = decoded.slice(0, separator);
  if (Number.isNaN(Date.parse(createdAt))) return undefined;
  return { createdAt, id: decoded.slice(separator + 1) };
}

/** @internal What {@link parseHeaderLines} read: the headers, or why a line is not one. */
export type HeaderLines =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; message: string };

/**
 * @internal The static headers of the endpoint form's text area: one `Name: value` a line, blank
 * lines skipped, name and value trimmed. A line without a colon or a name given twice is refused
 * with its line number; names and values are then checked by the SDK's header schema.
 */
export function parseHeaderLines(text: string): HeaderLines {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (name === '') {
      return { ok: false, message: `Line ${index + 1} is not a header: write Name: value.` };
    }
    if (Object.hasOwn(headers, name)) {
      return { ok: false, message: `Line ${index + 1} gives ${name} a second time.` };
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return { ok: true, headers };
}

/** @internal Static headers as the endpoint form's text area shows them. */
export function headerLines(headers: Readonly<Record<string, string>>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

/**
 * @internal The rate limit field: empty is none (`null`), whole digits a number; anything else is
 * `NaN`, which the schema refuses with its message.
 */
export function parseRateLimit(text: string): number | null {
  if (text === '') return null;
  return /^\d{1,7}$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * @internal A date and time field of the replay form, read as UTC when it names no zone
 * (`2026-03-01T09:00`); empty is `undefined`. The SDK's schema checks the result.
 */
export function utcInstant(text: string): string | undefined {
  if (text === '') return undefined;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(text)) return `${text}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?$/.test(text)) return `${text}Z`;
  return text;
}

/** @internal Every value a form sent under `name` (checkboxes, a multiple select), strings only. */
export function listField(body: unknown, name: string, max = 50): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const value = (body as Record<string, unknown>)[name];
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.filter((item): item is string => typeof item === 'string').slice(0, max);
}
