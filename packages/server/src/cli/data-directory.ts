import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** @internal Where the embedded database lives, and whether the operator named it. */
export interface DataDirectory {
  /** The absolute path of the directory. */
  path: string;
  /** True when it came from `--data-dir` or `FOLLOWUP_DATA_DIR`, false for the default. */
  explicit: boolean;
}

/**
 * @internal The data directory of the embedded database, the same for the server and every
 * operator command, from any working directory: `--data-dir`, else `FOLLOWUP_DATA_DIR`, else
 * `followup` under the user's data home (`$XDG_DATA_HOME`, or `~/.local/share`).
 */
export function resolveDataDirectory(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): DataDirectory {
  const named = option || env.FOLLOWUP_DATA_DIR;
  if (named) return { path: resolve(named), explicit: true };
  // The XDG base directory specification ignores a relative XDG_DATA_HOME.
  const xdg = env.XDG_DATA_HOME;
  const dataHome = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), '.local', 'share');
  return { path: join(dataHome, 'followup'), explicit: false };
}

/** @internal Whether `path` holds a database (PostgreSQL's data directories have `PG_VERSION`). */
export function holdsDatabase(path: string): boolean {
  return existsSync(join(path, 'PG_VERSION'));
}
