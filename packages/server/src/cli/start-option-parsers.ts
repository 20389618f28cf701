import { parseDuration } from '../duration.js';
import type { SessionPolicy } from '../users/sessions.js';
import { type CliOptions, UsageError } from './usage.js';

// The values of `start`'s own options, read from the command line or the environment.

/** @internal `--port` / `PORT`: a whole number up to 65535. */
export function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) throw new UsageError(`Not a port: ${text}`);
  return port;
}

/** @internal `--auto-disable-after`: a duration from 1m to 90d, in ms. */
export function parseAutoDisable(text: string): number {
  let seconds: number | undefined;
  try {
    seconds = parseDuration(text);
  } catch {
    seconds = undefined;
  }
  if (seconds === undefined || seconds < 60 || seconds > 90 * 86_400) {
    throw new UsageError('--auto-disable-after is a duration from 1m to 90d, such as 5d or 12h.');
  }
  return seconds * 1000;
}

/** @internal Whether an environment variable says yes (`1`, `true`, `yes`, `on`). */
export function isTrue(text: string | undefined): boolean {
  return text !== undefined && /^(1|true|yes|on)$/i.test(text.trim());
}

/** @internal Whether a listen address is reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * @internal `--session-idle` and `--session-lifetime`: durations such as 30m or 12h, at most 30
 * days; `undefined` when neither is given.
 */
export function sessionPolicy(
  idleText: string | undefined,
  lifetimeText: string | undefined,
): Partial<SessionPolicy> | undefined {
  const read = (text: string | undefined, flag: string): number | undefined => {
    if (text === undefined) return undefined;
    const seconds = parseDuration(text, { max: 30 * 24 * 60 * 60 });
    if (seconds === undefined || seconds < 60) {
      throw new UsageError(`--${flag} is a duration such as 30m or 12h, from 1m to 30d.`);
    }
    return seconds * 1000;
  };
  const idleTimeoutMs = read(idleText, 'session-idle');
  const absoluteLifetimeMs = read(lifetimeText, 'session-lifetime');
  if (idleTimeoutMs === undefined && absoluteLifetimeMs === undefined) return undefined;
  return {
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMs }),
    ...(absoluteLifetimeMs === undefined ? {} : { absoluteLifetimeMs }),
  };
}

/**
 * @internal `--unsafe-no-fsync` / `UNSAFE_NO_FSYNC`: whether the embedded database may
 * acknowledge writes before they are on disk. Refused beside PostgreSQL, whose durability is its
 * own server's (`fsync`, `synchronous_commit`), so that no one believes it took effect there.
 */
export function unsafeNoFsync(
  values: CliOptions,
  env: Record<string, string | undefined>,
): boolean {
  const unsafe = values['unsafe-no-fsync'] === true || isTrue(env.UNSAFE_NO_FSYNC);
  if (unsafe && (values['database-url'] ?? env.DATABASE_URL)) {
    throw new UsageError(
      '--unsafe-no-fsync (UNSAFE_NO_FSYNC) applies to the embedded database only; on PostgreSQL, ' +
        "durability is its server's settings (fsync, synchronous_commit).",
    );
  }
  return unsafe;
}
