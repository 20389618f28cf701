import { FollowUp } from '@followup/sdk';
import { usageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { type ParsedCommandLine, stringOption } from './command.js';
import { readStoredCredentials } from './config-file.js';

/** @internal Where a command finds the server and the token to call it with. */
export interface Credentials {
  baseUrl: string;
  token: string;
}

/** @internal The `--base-url` and `--token` of a command line. */
export interface CredentialFlags {
  'base-url'?: string | undefined;
  token?: string | undefined;
}

/** @internal The credential flags of a parsed command line. */
export function credentialFlags(line: ParsedCommandLine): CredentialFlags {
  return { 'base-url': stringOption(line, 'base-url'), token: stringOption(line, 'token') };
}

/** @internal The options every command that calls the server takes. */
export const CREDENTIAL_OPTIONS = {
  'base-url': { type: 'string' },
  token: { type: 'string' },
} as const;

/** @internal The help lines of {@link CREDENTIAL_OPTIONS}. */
export const CREDENTIAL_HELP = `Credentials, first found wins:
  --base-url URL, --token TOKEN        on the command line
  FOLLOWUP_BASE_URL, FOLLOWUP_TOKEN    in the environment
  followup login                       stored in $XDG_CONFIG_HOME/followup/config.json`;

function sameServer(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * @internal The credentials of a command: each of the base URL and the token from the command
 * line, else the environment, else what `followup login` stored. The stored token is used only
 * with the stored server: a token is never sent to a server it was not given for.
 *
 * @throws FollowUpCliError `usage` when no source gives one of them.
 */
export function resolveCredentials(flags: CredentialFlags, io: CliIo): Credentials {
  let stored: ReturnType<typeof readStoredCredentials> | null = null;
  const storedCredentials = () => {
    if (stored === null) stored = readStoredCredentials(io.env);
    return stored;
  };
  const baseUrl = flags['base-url'] || io.env.FOLLOWUP_BASE_URL || storedCredentials()?.baseUrl;
  if (!baseUrl) {
    throw usageError(
      'No server: pass --base-url, set FOLLOWUP_BASE_URL, or run followup login first.',
    );
  }
  let token = flags.token || io.env.FOLLOWUP_TOKEN;
  if (!token) {
    const saved = storedCredentials();
    if (saved && sameServer(saved.baseUrl, baseUrl)) token = saved.token;
  }
  if (!token) {
    throw usageError(
      `No token for ${baseUrl}: pass --token, set FOLLOWUP_TOKEN, or run followup login --base-url ${baseUrl}.`,
    );
  }
  return { baseUrl, token };
}

/** @internal The SDK client of a command, on the command's `fetch`. */
export function createClient(credentials: Credentials, io: CliIo): FollowUp {
  try {
    return new FollowUp({
      token: credentials.token,
      baseUrl: credentials.baseUrl,
      ...(io.fetch ? { fetch: io.fetch } : {}),
    });
  } catch (error) {
    // The SDK's configuration errors name the option, never the token's value.
    throw usageError(error instanceof Error ? error.message : String(error));
  }
}
