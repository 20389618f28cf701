import type { EndpointSettings } from '../stores/webhook-endpoint-store.js';

// What a caller may change of an endpoint, in the API's words, and those words as the columns.

/** @internal An endpoint's settings as a caller gives them (the API's field names). */
export interface EndpointSettingsInput {
  description?: string | null | undefined;
  subscriber?: string | null | undefined;
  headers?: Record<string, string> | undefined;
  rateLimit?: number | null | undefined;
  timeoutSeconds?: number | undefined;
  payload?: 'full' | 'thin' | undefined;
}

/** @internal A change to an endpoint: its URL, kinds and settings, and its state. */
export interface EndpointChange extends EndpointSettingsInput {
  url?: string | undefined;
  events?: readonly string[] | undefined;
  state?: 'active' | 'disabled' | undefined;
}

/** @internal The settings as stored: the fields given, under their column names. */
export function settingsOf(input: EndpointSettingsInput): Partial<EndpointSettings> {
  const settings = {
    description: input.description,
    subscriber: input.subscriber,
    headers: input.headers,
    rate_limit: input.rateLimit,
    timeout_seconds: input.timeoutSeconds,
    payload: input.payload,
  };
  return Object.fromEntries(
    Object.entries(settings).filter(([, value]) => value !== undefined),
  ) as Partial<EndpointSettings>;
}
