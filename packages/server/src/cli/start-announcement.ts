import type { SeededDemoData } from '../demo/demo-data.js';
import { DEMO_EHR_VENDOR, demoEhrWebhookCommand } from './demo-ehr-webhook.js';

/** @internal What `start` tells its user once it is ready: where, and with `--demo`, how in. */
export interface StartAnnouncement {
  /** The listening address's origin. */
  origin: string;
  /** Where people reach the server (`--public-url`, else `origin`): the commands name it. */
  publicUrl: string;
  driver: string;
  /** Seconds from the process's start to the listening server. */
  readySeconds: number;
  /** `GET /metrics` of the metrics listener, when one runs. */
  metricsUrl?: string;
  /** With `--demo`: the demo ADMIN token, and what else the demo made. */
  demo?: {
    token: string;
    signIn?: { email: string; signInUrl: string; expiresAt: string };
    seeded?: SeededDemoData;
    /** The demo EHR vendor's secret, when `start` made one. */
    ehrSecret?: string;
  };
}

/**
 * @internal The announcement as `start` writes it on standard output, in one write, so that no
 * log line (on standard error, which a terminal shows in the same place) can fall inside it:
 * `--json`, one JSON line; otherwise the text block that a person copies the token, the sign-in
 * link and the EHR command from.
 */
export function announcementText(announcement: StartAnnouncement, { json }: { json: boolean }) {
  const { demo, publicUrl } = announcement;
  if (json) {
    return `${JSON.stringify({
      url: announcement.origin,
      driver: announcement.driver,
      ...(announcement.metricsUrl ? { metrics: announcement.metricsUrl } : {}),
      token: demo?.token,
      ...(demo?.signIn
        ? {
            signIn: {
              email: demo.signIn.email,
              url: demo.signIn.signInUrl,
              expiresAt: demo.signIn.expiresAt,
            },
          }
        : {}),
      ...(demo?.ehrSecret ? { ehr: { vendor: DEMO_EHR_VENDOR, secret: demo.ehrSecret } } : {}),
    })}\n`;
  }
  const lines = [
    `FollowUp server listening on ${announcement.origin} (${announcement.driver}), ready ${announcement.readySeconds} s after the process started`,
  ];
  if (announcement.metricsUrl) lines.push(`Metrics at ${announcement.metricsUrl}`);
  if (demo) {
    lines.push(
      'Demo ADMIN token (shown once, valid for 24 hours; a restart prints a new one):',
      `  ${demo.token}`,
      `Try: curl -H "Authorization: Bearer ${demo.token}" ${publicUrl}/api/contacts`,
    );
    if (demo.signIn) {
      lines.push(
        `Demo ADMIN user ${demo.signIn.email}: open this one-time sign-in link (valid 24 hours)`,
        'and choose a password:',
        `  ${demo.signIn.signInUrl}`,
      );
    }
    if (demo.seeded) {
      lines.push(`Seeded ${demo.seeded.contacts} demo contacts and ${demo.seeded.deals} deals.`);
    }
    if (demo.ehrSecret) {
      lines.push(
        `Demo EHR vendor ${DEMO_EHR_VENDOR}, webhook secret (shown once):`,
        `  ${demo.ehrSecret}`,
        'Send it a signed test webhook (prints 202 and the receipt id):',
        `  ${demoEhrWebhookCommand({ origin: publicUrl, secret: demo.ehrSecret })}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
