import { vendorProfiles } from '@followup/webhooks';

/**
 * The environment variable holding a vendor's shared secret: `EHR_WEBHOOK_SECRET_<KEY>`, the key
 * upper-cased with `-` as `_` (`oracle-health` → `EHR_WEBHOOK_SECRET_ORACLE_HEALTH`).
 */
export function ehrSecretVariable(vendor: string): string {
  return `EHR_WEBHOOK_SECRET_${vendor.toUpperCase().replaceAll('-', '_')}`;
}

/**
 * Reads the shared secret of every known vendor from the environment
 * (`EHR_WEBHOOK_SECRET_<KEY>`), for `buildServer({ ehrWebhookSecrets })`.
 *
 * @example
 * ```ts
 * const app = buildServer({ database, ehrWebhookSecrets: ehrSecretsFromEnvironment(process.env) });
 * ```
 */
export function ehrSecretsFromEnvironment(
  env: Record<string, string | undefined>,
  vendors: readonly string[] = Object.keys(vendorProfiles),
): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const vendor of vendors) {
    const secret = env[ehrSecretVariable(vendor)];
    if (secret) secrets[vendor] = secret;
  }
  return secrets;
}
