import type { Clock } from '../clock.js';
import type { Database, Queryable } from '../storage/database.js';
import {
  countSignInFailure,
  deleteSignInFailures,
  giveBackSignInFailure,
  listOpenFailureWindows,
  markFailureBurstReported,
} from '../stores/sign-in-failure-store.js';

/** Thrown inside the reservation's transaction to undo it. */
class Throttled extends Error {}

/** How many failed sign-ins each key may have in a window, and the window's length. */
export interface SignInThrottlePolicy {
  /**
   * Failures per account per window: per e-mail address as the user lookup compares it, so
   * every spelling of an address that finds one user shares this limit. Default 5.
   */
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

/**
 * @internal The keys of an attempt: the e-mail address as the user lookup compares it, and the
 * client address. `lowerEmail` must be the database's `lower()` of the address typed (see
 * `signInWithPassword`), never JavaScript's `toLowerCase()`: the two disagree (`İ`, a final `Σ`,
 * and per the database's locale), and every spelling that finds one user must count against one
 * limit.
 */
export function signInKeys(lowerEmail: string, address: string): SignInKeys {
  return { account: `account:${lowerEmail}`, address: `address:${address}` };
}

/** @internal A key that just reached its limit: audited once per window as a burst. */
export interface ThrottleBurst {
  kind: 'account' | 'address';
  key: string;
  failures: number;
}

/**
 * @internal The sign-in throttle, kept in the database so that every instance counts the same
 * failures. Fixed windows per key; a key at its limit refuses every attempt (even with the right
 * password) until its window ends. Each attempt reserves its place before the password is
 * checked, so concurrent attempts cannot exceed the limit.
 */
export function createSignInThrottle(options: {
  clock: Clock;
  policy?: Partial<SignInThrottlePolicy>;
}) {
  const { clock } = options;
  const policy: SignInThrottlePolicy = { ...DEFAULT_SIGN_IN_THROTTLE, ...options.policy };
  const limitOf = (key: string) =>
    key.startsWith('account:') ? policy.perAccount : policy.perAddress;

  /** Seconds until the window of the first key over its limit ends (at least 1). */
  async function retryAfterSeconds(queryable: Queryable, keys: SignInKeys): Promise<number> {
    const now = clock.now();
    const rows = await listOpenFailureWindows(queryable, {
      keys: [keys.account, keys.address],
      windowStart: new Date(now - policy.windowMs),
    });
    let wait = 1;
    for (const row of rows) {
      if (row.failures < limitOf(row.key)) continue;
      const end = Date.parse(row.window_started_at) + policy.windowMs;
      wait = Math.max(wait, Math.ceil((end - now) / 1000));
    }
    return wait;
  }

  return {
    policy,

    /**
     * Reserves one attempt under both keys before the password is checked: counts it as a
     * failure, in one statement per key that counts only while the key is under its limit, and
     * answers 0. A key at its limit counts nothing and the answer is the seconds until its window
     * ends. Concurrent attempts, on this instance or another, each take one of the places left,
     * so a burst of attempts is never checked more often than the limit allows. A successful
     * sign-in gives its place back ({@link release}).
     */
    async reserve(database: Database, keys: SignInKeys): Promise<number> {
      const now = new Date(clock.now());
      const windowStart = new Date(now.getTime() - policy.windowMs);
      const reserved = await database
        .transaction(async (transaction) => {
          for (const key of [keys.account, keys.address]) {
            const counted = await countSignInFailure(transaction, {
              key,
              now,
              windowStart,
              limit: limitOf(key),
            });
            // Over the limit: undo the other key's count too.
            if (!counted) throw new Throttled();
          }
          return true;
        })
        .catch((error: unknown) => {
          if (error instanceof Throttled) return false;
          throw error;
        });
      return reserved ? 0 : retryAfterSeconds(database, keys);
    },

    /**
     * After a failed attempt (already counted by {@link reserve}): answers the keys that have
     * reached their limit and were not reported yet in their window, marking them reported.
     */
    async reportBursts(queryable: Queryable, keys: SignInKeys): Promise<ThrottleBurst[]> {
      const bursts: ThrottleBurst[] = [];
      for (const [kind, key] of [
        ['account', keys.account],
        ['address', keys.address],
      ] as const) {
        const failures = await markFailureBurstReported(queryable, { key, limit: limitOf(key) });
        if (failures !== undefined)
          bursts.push({ kind, key: key.slice(kind.length + 1), failures });
      }
      return bursts;
    },

    /**
     * After a successful sign-in: forgets the account's failures and gives the client address
     * back the place its attempt reserved.
     */
    async release(queryable: Queryable, keys: SignInKeys): Promise<void> {
      await deleteSignInFailures(queryable, keys.account);
      await giveBackSignInFailure(queryable, keys.address);
    },
  };
}

/** @internal The sign-in throttle; see {@link createSignInThrottle}. */
export type SignInThrottle = ReturnType<typeof createSignInThrottle>;
