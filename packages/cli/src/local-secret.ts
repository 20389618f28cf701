import { join } from 'node:path';
import { isSigningSecret, newSigningSecret } from '@followup/sdk/receiver-checks';
import { FollowUpCliError } from './cli-error.js';
import { configDirectory, readPrivateFile, writePrivateFile } from './config-file.js';

/**
 * @internal The secret `followup listen` signs with: kept in `listen-secret` of the
 * configuration folder (0600), so that a receiver configured once keeps verifying on every run;
 * a new one when there is none, or with `renew` (`--new-secret`).
 */
export function listenSecret(
  env: Readonly<Record<string, string | undefined>>,
  options: { renew: boolean },
): { secret: string; file: string; created: boolean } {
  const file = join(configDirectory(env), 'listen-secret');
  const kept = options.renew ? undefined : readPrivateFile(file)?.trim();
  if (kept !== undefined) {
    if (!isSigningSecret(kept)) {
      throw new FollowUpCliError({
        code: 'config_invalid',
        message: `${file} does not hold a signing secret (whsec_…): run followup listen --new-secret to replace it.`,
      });
    }
    return { secret: kept, file, created: false };
  }
  const secret = newSigningSecret();
  writePrivateFile(file, `${secret}\n`);
  return { secret, file, created: true };
}
