import { randomBytes } from 'node:crypto';
import { signVendorPayload, vendorProfiles } from '@followup/webhooks';

/** @internal The EHR vendor `start --demo` configures, so that its webhooks can be tried at once. */
export const DEMO_EHR_VENDOR = 'athenahealth';

/**
 * The body of the demo vendor's test webhook, and the JavaScript the command makes it with: the
 * same bytes (`run-cli.test.ts` sends the command, and the server verifies them), written with
 * single quotes inside the command's double-quoted shell string.
 */
const DEMO_EHR_WEBHOOK_BODY = JSON.stringify({ event: 'appointment.created', id: 'demo-1' });
const DEMO_EHR_WEBHOOK_BODY_SCRIPT = `JSON.stringify({event:'appointment.created',id:'demo-1'})`;

/** @internal A fresh random secret for the demo vendor (32 bytes, base64url). */
export function newDemoEhrSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * @internal A command to paste into a shell that sends the demo vendor a correctly signed test
 * webhook and prints the answer's status and body: `202 {"receiptId":"rcpt_…"}`. It needs only
 * Node. The body is always the same, so it is signed here, by `@followup/webhooks` as the vendor
 * signs (HMAC-SHA256 over the exact bytes sent, in the vendor's header): the command carries
 * that signature, not the secret. Sent again, it is the same delivery, which the server answers
 * 202 as a replay.
 */
export function demoEhrWebhookCommand(options: { origin: string; secret: string }): string {
  const profile = vendorProfiles[DEMO_EHR_VENDOR];
  const signature = signVendorPayload(profile, DEMO_EHR_WEBHOOK_BODY, { secret: options.secret });
  // The signature is hexadecimal and the origin a URL: neither holds a quote or a backslash.
  const script =
    `fetch('${options.origin}/api/ehr/webhooks/${DEMO_EHR_VENDOR}',{method:'POST',` +
    `headers:{'content-type':'application/json','${profile.header}':'${signature}'},` +
    `body:${DEMO_EHR_WEBHOOK_BODY_SCRIPT}})` +
    `.then(async(response)=>console.log(response.status,await response.text()))`;
  return `node -e "${script}"`;
}
