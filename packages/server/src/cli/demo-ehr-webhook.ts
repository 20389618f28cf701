import { randomBytes } from 'node:crypto';
import { vendorProfiles } from '@followup/webhooks';

/** @internal The EHR vendor `start --demo` configures, so that its webhooks can be tried at once. */
export const DEMO_EHR_VENDOR = 'athenahealth';

/** @internal A fresh random secret for the demo vendor (32 bytes, base64url). */
export function newDemoEhrSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * @internal A command to paste into a shell that sends the demo vendor a correctly signed test
 * webhook (HMAC-SHA256 over the exact bytes sent, in the vendor's signature header) and prints
 * the answer's status and body: `202 {"receiptId":"rcpt_…"}`. It needs only Node.
 */
export function demoEhrWebhookCommand(options: { origin: string; secret: string }): string {
  const profile = vendorProfiles[DEMO_EHR_VENDOR];
  if (profile === undefined || profile.scheme !== 'hmac-sha256-body') {
    throw new Error(`${DEMO_EHR_VENDOR} must sign the body alone`);
  }
  // The secret is base64url and the origin a URL: neither holds a quote or a backslash.
  const script =
    `const body=JSON.stringify({event:'appointment.created',id:'demo-1'});` +
    `const signature='${profile.prefix}'+require('node:crypto').createHmac('sha256','${options.secret}').update(body).digest('hex');` +
    `fetch('${options.origin}/api/ehr/webhooks/${DEMO_EHR_VENDOR}',{method:'POST',` +
    `headers:{'content-type':'application/json','${profile.header}':signature},body})` +
    `.then(async(response)=>console.log(response.status,await response.text()))`;
  return `node -e "${script}"`;
}
