import type { WebhookEndpointInfo } from '../../delivery/webhook-endpoint-info.js';
import { when } from './page-helpers.js';

/** @internal How an endpoint's state reads in the web application: words first, colour second. */
export interface EndpointStatus {
  /** The badge's text: `Active`, `Failing`, `Disabled by the server` or `Disabled`. */
  label: string;
  /** The badge's look (a class); the label alone says the same. */
  tone: 'ok' | 'warning' | 'danger' | 'off';
  /** Why, in a few words for a list (`answered 410 Gone`), or `''`. */
  summary: string;
  /** Why, in a sentence, or `''` when there is nothing to add. */
  detail: string;
  /** Whether **Enable** (again) is the action to offer. */
  disabled: boolean;
}

/**
 * @internal The status of an endpoint as people read it: whether the server disabled it (a
 * `410 Gone`, or every attempt failing for the auto-disable period) and since when its attempts
 * fail, as `followup-server endpoints list` says it.
 */
export function endpointStatus(
  endpoint: Pick<WebhookEndpointInfo, 'state' | 'disabledReason' | 'failingSince'>,
): EndpointStatus {
  if (endpoint.state === 'active') {
    return endpoint.failingSince
      ? {
          label: 'Failing',
          tone: 'warning',
          summary: `failing since ${when(endpoint.failingSince)}`,
          detail: `Every attempt has failed since ${when(endpoint.failingSince)}. If they go on failing, the server disables it.`,
          disabled: false,
        }
      : { label: 'Active', tone: 'ok', summary: '', detail: '', disabled: false };
  }
  if (endpoint.disabledReason === 'gone') {
    return {
      label: 'Disabled by the server',
      tone: 'danger',
      summary: 'answered 410 Gone',
      detail:
        'It answered 410 Gone. Enable it once the receiver is back; the deliveries that waited are sent.',
      disabled: true,
    };
  }
  if (endpoint.disabledReason === 'failing') {
    return {
      label: 'Disabled by the server',
      tone: 'danger',
      summary: `failing since ${when(endpoint.failingSince)}`,
      detail: `Every attempt failed since ${when(endpoint.failingSince)}. Enable it once the receiver is fixed; the deliveries that waited are sent.`,
      disabled: true,
    };
  }
  return {
    label: 'Disabled',
    tone: 'off',
    summary: '',
    detail: 'Disabled by a person: nothing is sent to it until it is enabled.',
    disabled: true,
  };
}
