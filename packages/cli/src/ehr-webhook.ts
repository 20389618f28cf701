import { randomUUID } from 'node:crypto';
import {
  type SignedVendorProfile,
  signVendorPayload,
  type VendorKey,
  vendorProfiles,
} from '@followup/webhooks';
import { FollowUpCliError, usageError } from './cli-error.js';
import { echoable } from './command.js';

/** @internal The vendor `followup trigger ehr.receipt.recorded` signs as by default. */
export const DEFAULT_EHR_VENDOR = 'athenahealth';

/** @internal The vendors whose webhooks the server verifies, and so that followup can sign as. */
export const SIGNED_EHR_VENDORS: readonly string[] = Object.values(vendorProfiles)
  .filter((profile) => profile.scheme !== 'none')
  .map((profile) => profile.key);

/** @internal The server's variable of a vendor's secret (`EHR_WEBHOOK_SECRET_<KEY>`), for messages. */
export function ehrSecretVariable(vendor: string): string {
  return `EHR_WEBHOOK_SECRET_${vendor.toUpperCase().replaceAll('-', '_')}`;
}

/** @internal The profile of a vendor followup can sign as, or a usage error naming them. */
export function signedVendorProfile(vendor: string): SignedVendorProfile {
  const profile = Object.hasOwn(vendorProfiles, vendor)
    ? vendorProfiles[vendor as VendorKey]
    : undefined;
  if (profile === undefined || profile.scheme === 'none') {
    throw usageError(
      `${echoable(vendor)} is not a vendor whose webhooks the server verifies: ${SIGNED_EHR_VENDORS.join(', ')}.`,
    );
  }
  return profile;
}

/** @internal Options of {@link postEhrWebhook}. */
export interface PostEhrWebhookOptions {
  baseUrl: string;
  profile: SignedVendorProfile;
  /** The vendor's shared secret, the server's `EHR_WEBHOOK_SECRET_<KEY>`. */
  secret: string;
  fetch: typeof fetch;
  /** Now, in milliseconds since the epoch: the time a timestamped vendor signs. */
  now: number;
}

/**
 * @internal Sends the server's EHR webhook route (`POST /api/ehr/webhooks/{vendor}`) a delivery
 * signed as the vendor signs (`signVendorPayload` of `@followup/webhooks`), with a new id in its
 * body so that the server never takes it for a replay, and returns the receipt's id. A refusal
 * is a {@link FollowUpCliError} saying what to fix; no message repeats the secret or the body.
 */
export async function postEhrWebhook(options: PostEhrWebhookOptions): Promise<string> {
  const { profile } = options;
  const body = JSON.stringify({ event: 'followup.trigger', id: `trigger-${randomUUID()}` });
  const signature = signVendorPayload(profile, body, {
    secret: options.secret,
    timestamp: Math.floor(options.now / 1000),
  });
  const url = new URL(`/api/ehr/webhooks/${profile.key}`, options.baseUrl);
  const response = await options.fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [profile.header]: signature },
    body,
  });
  const answer = (await response.json().catch(() => undefined)) as
    | { receiptId?: unknown; code?: unknown }
    | undefined;
  if (response.status === 202 && typeof answer?.receiptId === 'string') return answer.receiptId;
  const variable = ehrSecretVariable(profile.key);
  const why: Record<string, string> = {
    signature_invalid: `the server refused the signature: --ehr-secret is not its ${variable}.`,
    vendor_not_supported: `the server has no secret for ${profile.key}: start it with ${variable} (followup-server start --demo makes one for ${DEFAULT_EHR_VENDOR}).`,
    unknown_vendor: `the server does not know the vendor ${profile.key}.`,
  };
  const code = typeof answer?.code === 'string' ? answer.code : undefined;
  throw new FollowUpCliError({
    code: 'ehr_webhook_refused',
    message: `${url.pathname} answered ${response.status}${code ? ` ${code}` : ''}: ${(code && why[code]) || 'the delivery was not taken.'}`,
  });
}
