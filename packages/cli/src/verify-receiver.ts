import { ConfigurationError } from '@followup/sdk';
import {
  type ReceiverReport,
  verifyReceiver as runReceiverChecks,
  type VerifyReceiverOptions,
} from '@followup/sdk/receiver-checks';
import { FollowUpCliError } from './cli-error.js';

/**
 * Checks a webhook receiver against the FollowUp delivery contract, as `followup
 * verify-receiver` does: one valid delivery of each event kind (answered 2xx), the same delivery
 * twice (2xx both times, else a warning), a bad signature, a wrong secret, a timestamp 5.5
 * minutes old or ahead, no signature, a body changed by one byte (each refused with 4xx; a 2xx
 * fails), two signatures during a rotation, each signature scheme alone and the server's largest
 * event (2xx), and the answer times against the server's timeout. Every delivery is signed by
 * `@followup/webhooks` as the server signs them.
 *
 * The checks are those of `@followup/sdk/receiver-checks` (which `@followup/server/testing` also
 * runs, against a handler in-process); this function throws the errors of this package.
 *
 * @returns The report; `ok` is `false` when a check failed. Nothing is thrown for a failing or
 *   unreachable receiver: that is a failed check.
 * @throws {@link FollowUpCliError} `invalid_options` for a URL or a secret of the wrong form.
 * @example
 * ```ts
 * import { verifyReceiver } from '@followup/cli';
 *
 * const report = await verifyReceiver({ url: 'http://localhost:3000/webhooks', secret: process.env.WEBHOOK_SECRET! });
 * for (const check of report.checks) console.log(check.status, check.name, check.detail);
 * ```
 */
export async function verifyReceiver(options: VerifyReceiverOptions): Promise<ReceiverReport> {
  try {
    return await runReceiverChecks(options);
  } catch (error) {
    if (ConfigurationError.isInstance(error)) {
      throw new FollowUpCliError({ code: 'invalid_options', message: error.message });
    }
    throw error;
  }
}
