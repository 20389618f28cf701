import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { FollowUpCliError } from './cli-error.js';

/** @internal What `followup login` stores: where the server is and the token to call it with. */
export interface StoredCredentials {
  baseUrl: string;
  token: string;
}

const storedCredentialsSchema = z.strictObject({
  baseUrl: z.string().min(1).max(2048),
  token: z.string().min(1).max(1024),
});

/**
 * @internal The folder of the command's files: `$XDG_CONFIG_HOME/followup`, or
 * `~/.config/followup` when the variable is unset or not an absolute path (the XDG Base
 * Directory rules: a relative value is invalid and ignored).
 */
export function configDirectory(env: Readonly<Record<string, string | undefined>>): string {
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, 'followup');
  const home = env.HOME;
  if (!home || !isAbsolute(home)) {
    throw new FollowUpCliError({
      code: 'no_config_directory',
      message: 'Neither XDG_CONFIG_HOME nor HOME names a folder for the followup configuration.',
    });
  }
  return join(home, '.config', 'followup');
}

/** @internal The credentials file, `config.json` in {@link configDirectory}. */
export function credentialsFile(env: Readonly<Record<string, string | undefined>>): string {
  return join(configDirectory(env), 'config.json');
}

/**
 * @internal Reads a credentials file's text. The message of a broken file names the file and
 * what is wrong, never a value from it (the token could be among them).
 */
export function parseStoredCredentials(text: string, file: string): StoredCredentials {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw brokenFile(file, 'it is not JSON');
  }
  const parsed = storedCredentialsSchema.safeParse(json);
  if (!parsed.success) {
    const fields = [
      ...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(top)')),
    ];
    throw brokenFile(file, `check ${fields.join(', ')}`);
  }
  return parsed.data;
}

function brokenFile(file: string, why: string): FollowUpCliError {
  return new FollowUpCliError({
    code: 'config_invalid',
    message: `${file} is not a followup configuration (${why}): run followup login again, or followup logout to remove it.`,
  });
}

/** @internal The stored credentials, or `undefined` when nobody logged in. */
export function readStoredCredentials(
  env: Readonly<Record<string, string | undefined>>,
): StoredCredentials | undefined {
  const file = credentialsFile(env);
  const text = readPrivateFile(file);
  return text === undefined ? undefined : parseStoredCredentials(text, file);
}

/** @internal Stores credentials, readable by the user only (0600, in a 0700 folder). */
export function writeStoredCredentials(
  env: Readonly<Record<string, string | undefined>>,
  credentials: StoredCredentials,
): string {
  const file = credentialsFile(env);
  writePrivateFile(file, `${JSON.stringify(credentials, null, 2)}\n`);
  return file;
}

/** @internal Removes the stored credentials; whether there were any. */
export function removeStoredCredentials(env: Readonly<Record<string, string | undefined>>): {
  file: string;
  removed: boolean;
} {
  const file = credentialsFile(env);
  const removed = readPrivateFile(file) !== undefined;
  rmSync(file, { force: true });
  return { file, removed };
}

/** @internal A file's text, or `undefined` when it does not exist. */
export function readPrivateFile(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new FollowUpCliError({
      code: 'config_unreadable',
      message: `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      cause: error,
    });
  }
}

/**
 * @internal Writes a file that holds a secret: created 0600 under a temporary name in a 0700
 * folder, then renamed over the old one, so that no other user can read it at any moment and a
 * crash leaves the old file or the new one, never half of either.
 */
export function writePrivateFile(file: string, text: string): void {
  const folder = join(file, '..');
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o600, flag: 'w' });
    // The mode given to writeFileSync applies only to a new file (and the umask narrows it):
    // set it again for a leftover temporary file of an earlier crash.
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new FollowUpCliError({
      code: 'config_unwritable',
      message: `${file} cannot be written (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      cause: error,
    });
  }
}
