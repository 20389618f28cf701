import type { Clock } from '../clock.js';
import type { Queryable } from '../storage/database.js';

/** How many failed sign-ins each key may have in a window, and the window's length. */
export interface SignInThrottlePolicy {
  /** Failures per account (e-mail address) per window. Default 5. */
  perAccount: number;
  /** Failures per client address per window. Default 20. */
  perAddress: number;
  /** The window, in milliseconds. Default 15 minutes. */
  windowMs: number;
}

/** The defaults: 5 failures per account and 20 per client address in 15 minutes. */
export const DEFAULT_SIGN_IN_THROTTLE: Readonly<SignInThrottlePolicy> = {
  perAccount: 5,
  perAddress: 20,
  windowMs: 15 * 60 * 1000,
};

/** @internal The throttle's keys of one sign-in attempt. */
export interface SignInKeys {
  account: string;
  address: string;
}

/** @internal The keys of an attempt: the normalized e-mail address and the client address. */
export function signInKeys(email: string, address: string): SignInKeys {
  return { account: `account:${email.trim().toLowerCase()}`, address: `address:${address}` };
}

/** @internal A key that just reached its limit: audited once per window as a burst. */
export interface ThrottleBurst {
  kind: 'account' | 'address';
  key: string;
  failures: number;
}

/**
 * @internal The sign-in throttle, kept in the database so that every instance counts the same
 * failures. Fixed windows per key; a key over its limit refuses every attempt (even with the right
 * password) until its window ends.
 */
export function createSignInThrottle(options: {
  clock: Clock;
  policy?: Partial<SignInThrottlePolicy>;
}) {
  const { clock } = options;
  const policy: SignInThrottlePolicy = { ...DEFAULT_SIGN_IN_THROTTLE, ...options.policy };
  const limitOf = (key: string) =>
    key.startsWith('account:') ? policy.perAccount : policy.perAddress;

  return {
    policy,

    /** Seconds until the attempt may be made, or 0 when it may be made now. */
    async retryAfterSeconds(queryable: Queryable, keys: SignInKeys): Promise<number> {
      const now = clock.now();
      const { rows } = await queryable.query<{
        key: string;
        failures: number;
        window_started_at: string;
      }>(
        `SELECT key, failures, window_started_at FROM sign_in_failures
          WHERE key = ANY($1::text[]) AND window_started_at > $2`,
        [[keys.account, keys.address], new Date(now - policy.windowMs)],
      );
      let wait = 0;
      for (const row of rows) {
        if (row.failures < limitOf(row.key)) continue;
        const end = Date.parse(row.window_started_at) + policy.windowMs;
        wait = Math.max(wait, Math.ceil((end - now) / 1000));
      }
      return wait;
    },

    /** Counts a failure under both keys; answers the keys that reached their limit just now. */
    async recordFailure(queryable: Queryable, keys: SignInKeys): Promise<ThrottleBurst[]> {
      const now = new Date(clock.now());
      const windowStart = new Date(now.getTime() - policy.windowMs);
      const bursts: ThrottleBurst[] = [];
      for (const [kind, key] of [
        ['account', keys.account],
        ['address', keys.address],
      ] as const) {
        const { rows } = await queryable.query<{ failures: number; reported: boolean }>(
          `INSERT INTO sign_in_failures (key, failures, window_started_at) VALUES ($1, 1, $2)
           ON CONFLICT (key) DO UPDATE SET
             failures = CASE WHEN sign_in_failures.window_started_at <= $3 THEN 1
                             ELSE sign_in_failures.failures + 1 END,
             reported = CASE WHEN sign_in_failures.window_started_at <= $3 THEN false
                             ELSE sign_in_failures.reported END,
             window_started_at = CASE WHEN sign_in_failures.window_started_at <= $3 THEN $2
                                      ELSE sign_in_failures.window_started_at END
           RETURNING failures, reported`,
          [key, now, windowStart],
        );
        const row = rows[0];
        if (row && row.failures >= limitOf(key) && !row.reported) {
          await queryable.query('UPDATE sign_in_failures SET reported = true WHERE key = $1', [
            key,
          ]);
          bursts.push({ kind, key: key.slice(kind.length + 1), failures: row.failures });
        }
      }
      return bursts;
    },

    /** Forgets an account's failures after a successful sign-in. */
    async clearAccount(queryable: Queryable, keys: SignInKeys): Promise<void> {
      await queryable.query('DELETE FROM sign_in_failures WHERE key = $1', [keys.account]);
    },
  };
}

/** @internal The sign-in throttle; see {@link createSignInThrottle}. */
export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
