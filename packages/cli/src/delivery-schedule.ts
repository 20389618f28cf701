/**
 * @internal The server's default wait before each retry of a failed delivery, in seconds (its
 * `DEFAULT_RETRY_DELAYS_SECONDS`, `packages/server/src/delivery/retry-schedule.ts`): 30 s, 2 min,
 * 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 16 h, 24 h, 24 h. A copy, because the command does not
 * depend on the server at run time; `delivery-schedule.test.ts` holds it equal to the server's.
 */
export const SERVER_RETRY_DELAYS_SECONDS: readonly number[] = Object.freeze([
  30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 57_600, 86_400, 86_400,
]);

/** @internal `--fast-retries`: the same number of retries, seconds apart instead of hours. */
export const FAST_RETRY_DELAYS_SECONDS: readonly number[] = Object.freeze([
  1, 2, 4, 8, 16, 30, 30, 30, 30, 30, 30,
]);
