/**
 * How a check of `verifyReceiver` ended: `pass`; `fail` (the receiver does what the
 * contract forbids: the command exits 1); `warn` (allowed, but worth fixing: a duplicate not
 * answered 2xx, a refusal answered 5xx, which the server retries); `skip` (not checkable here).
 *
 * @example
 * ```ts
 * const failed = report.checks.filter((check) => check.status === 'fail');
 * ```
 */
export type ReceiverCheckStatus = 'pass' | 'fail' | 'warn' | 'skip';

/**
 * One check of `verifyReceiver`: what was sent, what was expected, what came back.
 *
 * @example
 * ```ts
 * for (const check of report.checks) console.log(check.id, check.status, check.httpStatus);
 * ```
 */
export interface ReceiverCheck {
  /** Stable id, such as `event:contact.created`, `stale-timestamp`, `rotation`. */
  readonly id: string;
  /** What the check sends, for a person. */
  readonly name: string;
  /** The answer the contract asks for: `2xx` (take it) or `4xx` (refuse it). */
  readonly expected: '2xx' | '4xx' | 'time';
  /** How it ended. */
  readonly status: ReceiverCheckStatus;
  /** The receiver's status (the last one, for a check of several requests); `null` without one. */
  readonly httpStatus: number | null;
  /** How long the receiver took to answer, in milliseconds; `null` when nothing was sent. */
  readonly durationMs: number | null;
  /** Why it ended so, in a sentence. */
  readonly detail: string;
}

/**
 * What `verifyReceiver` found: every check, the counts, and the receiver's times.
 *
 * @example
 * ```ts
 * const report = await verifyReceiver({ url, secret });
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export interface ReceiverReport {
  /** The receiver checked. */
  readonly url: string;
  /** `true` when no check failed (warnings allowed). */
  readonly ok: boolean;
  /** Every check, in the order they ran. */
  readonly checks: readonly ReceiverCheck[];
  /** How many checks ended each way. */
  readonly summary: {
    /** Checks that passed. */
    readonly passed: number;
    /** Checks that failed: any makes `ok` false. */
    readonly failed: number;
    /** Checks that ended with a warning. */
    readonly warnings: number;
    /** Checks that could not run (a kind this version has no sample of). */
    readonly skipped: number;
  };
  /** The receiver's answer times over the deliveries it should take, against the server's limit. */
  readonly timing: {
    /** The median answer time, in milliseconds; `null` when nothing was answered. */
    readonly p50Ms: number | null;
    /** The longest answer time, in milliseconds; `null` when nothing was answered. */
    readonly maxMs: number | null;
    /** The server's limit for one attempt, in milliseconds. */
    readonly timeoutMs: number;
  };
}
