import type { DeliveryWorkerOptions } from '../delivery/delivery-worker-options.js';
import { parseRetryDelays } from '../delivery/retry-schedule.js';
import { FollowUpServerError } from '../errors.js';
import { isTrue, parseAutoDisable } from './start-option-parsers.js';
import { type CliOptions, UsageError } from './usage.js';

/**
 * @internal The most attempts one worker may be told to have in flight (`--delivery-concurrency`).
 * Each attempt that ends records its outcome in one transaction, which waits its turn in the
 * database's queue of 256 (`MAX_QUEUED_QUERIES`) beside the requests' queries; far above it, a
 * burst of ended attempts could fill the queue, and requests would be answered 503.
 */
export const MAX_DELIVERY_CONCURRENCY = 1_000;

type Values = Partial<
  Pick<
    CliOptions,
    | 'delivery-retry-delays'
    | 'delivery-timeout'
    | 'delivery-concurrency'
    | 'endpoint-concurrency'
    | 'auto-disable-after'
    | 'allow-private-endpoints'
    | 'allow-insecure-endpoints'
    | 'demo'
  >
>;

/** The worker's options that `start` sets: only those given, by flag first, then environment. */
export type StartDeliveryOptions = Pick<
  DeliveryWorkerOptions,
  | 'retryDelays'
  | 'attemptTimeoutMs'
  | 'concurrency'
  | 'endpointConcurrency'
  | 'autoDisableAfterMs'
  | 'allowPrivate'
  | 'allowInsecure'
>;

function retryDelays(text: string | undefined): number[] | undefined {
  if (text === undefined) return undefined;
  try {
    return parseRetryDelays(text);
  } catch (error) {
    if (!FollowUpServerError.isInstance(error)) throw error;
    throw new UsageError(`--delivery-retry-delays (DELIVERY_RETRY_DELAYS): ${error.message}`);
  }
}

function attemptTimeoutMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (!/^\d{1,3}(?:\.\d{1,3})?$/.test(text) || seconds <= 0 || seconds > 300) {
    throw new UsageError('--delivery-timeout is a number of seconds, more than 0, at most 300.');
  }
  return Math.round(seconds * 1000);
}

function deliveryConcurrency(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  if (!/^\d{1,4}$/.test(text.trim()) || value < 1 || value > MAX_DELIVERY_CONCURRENCY) {
    throw new UsageError(
      `--delivery-concurrency (DELIVERY_CONCURRENCY) is a whole number of attempts in flight, from 1 to ${MAX_DELIVERY_CONCURRENCY}; got ${JSON.stringify(text.slice(0, 20))}.`,
    );
  }
  return value;
}

function endpointConcurrency(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!/^\d{1,3}$/.test(text) || value < 1) {
    throw new UsageError('--endpoint-concurrency is a whole number from 1 to 999.');
  }
  return value;
}

/**
 * @internal The delivery worker's options of `start`: the retry schedule
 * (`--delivery-retry-delays`), an attempt's timeout (`--delivery-timeout`), the attempts in
 * flight (`--delivery-concurrency`, and per endpoint `--endpoint-concurrency`), when a failing
 * endpoint is disabled (`--auto-disable-after`), and which addresses may be reached
 * (`--allow-private-endpoints`, implied by `--demo`, and `--allow-insecure-endpoints`). Each flag
 * has its environment variable; a bad value is a usage error naming it.
 */
export function deliveryOptions(
  values: Values,
  env: Record<string, string | undefined>,
): StartDeliveryOptions {
  const delays = retryDelays(values['delivery-retry-delays'] ?? env.DELIVERY_RETRY_DELAYS);
  const timeoutMs = attemptTimeoutMs(values['delivery-timeout'] ?? env.DELIVERY_TIMEOUT);
  const concurrency = deliveryConcurrency(
    values['delivery-concurrency'] ?? env.DELIVERY_CONCURRENCY,
  );
  const perEndpoint = endpointConcurrency(
    values['endpoint-concurrency'] ?? env.DELIVERY_ENDPOINT_CONCURRENCY,
  );
  const autoDisableText = values['auto-disable-after'] ?? env.DELIVERY_AUTO_DISABLE_AFTER;
  const autoDisableAfterMs =
    autoDisableText === undefined ? undefined : parseAutoDisable(autoDisableText);
  return {
    allowPrivate:
      values['allow-private-endpoints'] === true ||
      values.demo === true ||
      isTrue(env.ALLOW_PRIVATE_ENDPOINTS),
    allowInsecure:
      values['allow-insecure-endpoints'] === true || isTrue(env.ALLOW_INSECURE_ENDPOINTS),
    ...(delays === undefined ? {} : { retryDelays: delays }),
    ...(timeoutMs === undefined ? {} : { attemptTimeoutMs: timeoutMs }),
    ...(concurrency === undefined ? {} : { concurrency }),
    ...(perEndpoint === undefined ? {} : { endpointConcurrency: perEndpoint }),
    ...(autoDisableAfterMs === undefined ? {} : { autoDisableAfterMs }),
  };
}
