// Plays each EHR vendor of @followup/webhooks' profiles against a FollowUp server: one webhook
// signed the way the vendor signs, one signed with the wrong secret, and says what the server
// answered against what the interface promises (202, 401 with a receipt, 404, 501).
import { createHmac, randomUUID } from 'node:crypto';
import { signPayload, vendorProfiles } from '@followup/webhooks';

/**
 * The environment variable the server reads a vendor's secret from: `EHR_WEBHOOK_SECRET_<KEY>`,
 * the key upper-cased with `-` as `_`.
 *
 * @param {string} key
 */
export const secretVariable = (key) =>
  `EHR_WEBHOOK_SECRET_${key.toUpperCase().replaceAll('-', '_')}`;

/**
 * The signature header a vendor sends for `body`, signed with `secret`, as the vendor would
 * compute it (independently of the verifier under test, except for the `t=,v1=` scheme).
 *
 * @param {import('@followup/webhooks').VendorProfile} profile
 * @param {string} body
 * @param {string} secret
 * @returns {Record<string, string>}
 */
export function vendorHeaders(profile, body, secret) {
  if (profile.scheme === 'none') return {};
  if (profile.scheme === 'hmac-sha256-timestamped') {
    return { [profile.header]: signPayload(body, { secret }) };
  }
  const digest = createHmac('sha256', secret).update(body).digest('hex');
  return { [profile.header]: `${profile.prefix ?? ''}${digest}` };
}

/**
 * Sends the webhooks and returns one outcome a case.
 *
 * @param {{ baseUrl: string, secrets: Record<string, string | undefined> }} options
 * @returns {Promise<Array<{ vendor: string, case: string, status: number, expected: number, detail: string }>>}
 */
export async function simulate({ baseUrl, secrets }) {
  const send = async (vendor, body, headers) => {
    const response = await fetch(`${baseUrl}/api/ehr/webhooks/${encodeURIComponent(vendor)}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', ...headers },
    });
    const answer = await response.json().catch(() => ({}));
    return { status: response.status, detail: answer.receiptId ?? answer.code ?? '' };
  };
  // A fresh body each time: a replayed body may be answered without being processed again.
  const body = (vendor) =>
    JSON.stringify({
      vendor,
      event: 'patient.updated',
      id: randomUUID(),
      patient: { mrn: 'A-1001' },
    });

  const outcomes = [];
  for (const profile of Object.values(vendorProfiles)) {
    const secret = secrets[profile.key];
    if (profile.scheme === 'none' || !secret) {
      const result = await send(profile.key, body(profile.key), {});
      const why = profile.scheme === 'none' ? 'no inbound scheme' : 'no secret configured';
      outcomes.push({ vendor: profile.key, case: why, expected: 501, ...result });
      continue;
    }
    const signed = body(profile.key);
    const good = await send(profile.key, signed, vendorHeaders(profile, signed, secret));
    outcomes.push({ vendor: profile.key, case: 'signed', expected: 202, ...good });
    const forged = body(profile.key);
    const wrong = await send(
      profile.key,
      forged,
      vendorHeaders(profile, forged, `${secret}-wrong`),
    );
    outcomes.push({ vendor: profile.key, case: 'wrong secret', expected: 401, ...wrong });
  }
  const unknown = await send('no-such-vendor', body('no-such-vendor'), {});
  outcomes.push({ vendor: 'no-such-vendor', case: 'unknown vendor', expected: 404, ...unknown });
  return outcomes;
}
