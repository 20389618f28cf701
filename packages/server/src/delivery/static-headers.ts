import { webhookHeaderNameRefusal, webhookHeaderValueRefusal } from '@followup/sdk';

/**
 * @internal The headers of one attempt: the endpoint's static headers, then the delivery's own
 * (signatures, ids, event), which always win. The API refuses a static header that would replace
 * one of ours, but a row written by another hand (SQL, an older release) is not trusted: a static
 * header named like one the delivery sets, in any case, or like any header FollowUp reserves, is
 * left out, and so is one whose name or value the API would refuse (a line break in a value
 * would make Node throw, or end the header). A value is never put in an error or a log line: the
 * header is dropped silently, since a static header is often a key.
 */
export function withStaticHeaders(
  staticHeaders: Readonly<Record<string, unknown>> | null | undefined,
  deliveryHeaders: Readonly<Record<string, string>>,
): Record<string, string> {
  const ours = new Set(Object.keys(deliveryHeaders).map((name) => name.toLowerCase()));
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries(staticHeaders ?? {})) {
    if (typeof value !== 'string' || ours.has(name.toLowerCase())) continue;
    // The name's refusal covers every header FollowUp reserves (`isReservedWebhookHeader`).
    if (webhookHeaderNameRefusal(name) !== undefined) continue;
    if (webhookHeaderValueRefusal(value) !== undefined) continue;
    merged[name] = value;
  }
  return { ...merged, ...deliveryHeaders };
}
