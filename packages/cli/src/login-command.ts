import { usageError } from './cli-error.js';
import type { CliIo } from './cli-io.js';
import { type Command, flagOption, stringOption } from './command.js';
import { removeStoredCredentials, writeStoredCredentials } from './config-file.js';
import { createClient } from './credentials.js';

/**
 * @internal `followup login`: checks a token against the server (`GET /api/me`), then stores the
 * server's URL and the token, readable by the user only. The token is read from `--token`,
 * `FOLLOWUP_TOKEN` or standard input, and never printed.
 */
export const loginCommand: Command = {
  name: 'login',
  summary: 'check a token against a server and store both for the other commands',
  help: `Usage: followup login --base-url URL [--token TOKEN] [--json]

Checks the token against the server (GET /api/me), then stores the URL and the token in
$XDG_CONFIG_HOME/followup/config.json (~/.config/followup/config.json without it), readable by
you only (mode 0600). The token is never printed.

  --base-url URL     the server (or FOLLOWUP_BASE_URL)
  --token TOKEN      the token (or FOLLOWUP_TOKEN, or piped on standard input, which keeps it
                     out of your shell's history: printf %s "$TOKEN" | followup login …)
  --json             print {"baseUrl","account":{"id","name","role"},"file"}`,
  options: {
    'base-url': { type: 'string' },
    token: { type: 'string' },
    json: { type: 'boolean' },
  },
  maxPositionals: 0,
  async run(line, io) {
    const baseUrl = stringOption(line, 'base-url') || io.env.FOLLOWUP_BASE_URL;
    if (!baseUrl) throw usageError('Which server? Pass --base-url or set FOLLOWUP_BASE_URL.');
    const token =
      stringOption(line, 'token') || io.env.FOLLOWUP_TOKEN || (await io.readStdin?.())?.trim();
    if (!token) {
      throw usageError('No token: pass --token, set FOLLOWUP_TOKEN, or pipe it on standard input.');
    }
    const me = await createClient({ baseUrl, token }, io).me();
    const file = writeStoredCredentials(io.env, { baseUrl, token });
    if (flagOption(line, 'json')) {
      const account = { id: me.id, name: me.name, role: me.role };
      io.stdout.write(`${JSON.stringify({ baseUrl, account, file })}\n`);
    } else {
      io.stdout.write(
        `Logged in to ${baseUrl} as ${me.name} (${me.role}, ${me.id}).\nCredentials stored in ${file} (mode 0600).\n`,
      );
    }
    return 0;
  },
};

/** @internal `followup logout`: removes what `followup login` stored. */
export const logoutCommand: Command = {
  name: 'logout',
  summary: 'remove the credentials followup login stored',
  help: `Usage: followup logout [--json]

Removes $XDG_CONFIG_HOME/followup/config.json. The token itself stays valid on the server:
revoke it there (followup-server tokens revoke) if it should stop working. The listen command's
local signing secret is kept.

  --json             print {"file","removed":true|false}`,
  options: { json: { type: 'boolean' } },
  maxPositionals: 0,
  async run(line, io: CliIo) {
    const { file, removed } = removeStoredCredentials(io.env);
    if (flagOption(line, 'json')) io.stdout.write(`${JSON.stringify({ file, removed })}\n`);
    else
      io.stdout.write(removed ? `Logged out: removed ${file}.\n` : `Not logged in (no ${file}).\n`);
    return 0;
  },
};
