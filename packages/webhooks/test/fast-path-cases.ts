// Arbitrary verification calls for the property tests of the fast paths (src/node-crypto.test.ts
// and src/web-crypto.test.ts): mostly the canonical case, which the fast paths take, and near
// misses of it in every argument, which they must leave to the general path or get right.
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { WebhookVerificationError } from '../src/errors.js';
import { signPayload, type verifySignature } from '../src/node-crypto.js';
import type { VerifyOptions } from '../src/signature-scheme.js';

const T = 1_700_000_000;
const BODY = '{"id":"dlv_1","event":"contact.created"}';

// Near misses of the canonical `t=<digits>,v1=<hex>` form: each is a small change a sender,
// a proxy or an attacker could make, and most of them still verify on the general path.
const mutations: readonly ((header: string, at: number, text: string) => string)[] = [
  (header) => header,
  (header) => header.toUpperCase().replace('T=', 't=').replace('V1=', 'v1='),
  (header, at) => `${header.slice(0, 40 + (at % 20))}A${header.slice(41 + (at % 20))}`,
  (header, at) => `${header.slice(0, at % header.length)} ${header.slice(at % header.length)}`,
  (header, at) => `${header.slice(0, at % header.length)}\t${header.slice(at % header.length)}`,
  (header) => ` ${header} `,
  (header) => `${header},v1=${'0'.repeat(64)}`,
  (header) => `${header},v0=${'0'.repeat(64)}`,
  (header) => `v0=abc,${header}`,
  (header) => `${header.split(',')[1]},${header.split(',')[0]}`,
  (header) => `${header.split(',')[0]},${header}`,
  (header) => header.slice(0, -1),
  (header) => `${header}0`,
  (header) => `${header}a`,
  (header) => header.replace('t=', 't=0'),
  (header) => header.replace('t=', 't=00'),
  (header) => header.replace('t=', 't=+'),
  (header) => header.replace('t=', 't=-'),
  (header) => header.replace(',v1=', ',v1 ='),
  (header) => header.replace(',v1=', ', v1='),
  (header) => header.replace(',v1=', ',V1='),
  (header) => header.replace(',v1=', ',v2='),
  (header) => header.replace(',v1=', ';v1='),
  (header) => `${header},`,
  (header) => `,${header}`,
  (header) => header.replace('t=', 'T='),
  (header, at) => header.slice(0, at % header.length) + header.slice((at % header.length) + 1),
  (header, at, text) =>
    header.slice(0, at % header.length) + text + header.slice(at % header.length),
  (header, at, text) =>
    header.slice(0, at % header.length) + text.slice(0, 1) + header.slice((at % header.length) + 1),
  (_header, _at, text) => text,
  (header) => header.replace(/t=\d+/, `t=${'9'.repeat(12)}`),
  (header) => header.replace(/t=\d+/, `t=${'1'.repeat(13)}`),
  (header) => header.replace(/t=\d+/, 't='),
  (header) => header.replace('t=', 't=１'), // a full-width digit
  (header) => header.replace(/.$/, 'é'),
];

const headerForms: readonly ((header: string) => unknown)[] = [
  (header) => header,
  (header) => ({ 'x-service-signature': header }),
  (header) => ({ 'X-Service-Signature': [header] }),
  // A fetch Headers refuses characters above U+00FF, so a getter of the same shape stands in.
  (header) => ({ get: (name: string) => (name === 'x-service-signature' ? header : null) }),
  (header) => ({ 'x-service-signature': header, 'X-SERVICE-SIGNATURE': header }),
  (header) => ({ 'x-service-signature': [header, header] }),
  () => ({}),
  () => undefined,
];

/** `usual` three times out of four, anything from `arbitrary` otherwise. */
function mostly<T>(usual: T, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ weight: 3, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary });
}

const validSecret = fc.string({ minLength: 1, maxLength: 40 }).filter((s) => s.isWellFormed());

const payloadArbitrary = fc.oneof(
  { weight: 4, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 3, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant('lone \uD800 surrogate') },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => bytes.buffer) },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => new DataView(bytes.buffer)),
  },
  { weight: 1, arbitrary: fc.constantFrom({ id: 'dlv_1' }, null, undefined, 42) },
);

const timeOptions = fc.record(
  {
    tolerance: fc.oneof(
      fc.constant(undefined),
      fc.integer({ min: 0, max: 1000 }),
      fc.constantFrom(0, 300, 0.5, -1, Number.NaN, Number.POSITIVE_INFINITY, null, '300'),
    ),
    ignoreTimestamp: fc.constantFrom(true, false, 'yes', undefined, undefined, undefined),
    nowOffset: fc.oneof(fc.integer({ min: -400, max: 400 }), fc.double({ min: -2, max: 2 })),
    nowForm: fc.oneof(
      { weight: 3, arbitrary: fc.constant('number') },
      { weight: 2, arbitrary: fc.constant('edge') },
      { weight: 1, arbitrary: fc.constantFrom('date', 'clock', 'NaN', 'ms', 'null') },
    ),
    // With nowForm 'edge': now is the tolerance away from the timestamp, give or take a second.
    edge: fc.constantFrom(-1, 0, 1),
    edgeSide: fc.constantFrom(-1, 1),
  },
  { requiredKeys: ['nowOffset', 'nowForm', 'edge', 'edgeSide'] },
);

/** The arguments of one call to `verifySignature`. */
export type VerificationCall = Parameters<typeof verifySignature>;

/**
 * Arbitrary calls, each with a header signed (by the Node entry's signPayload, or by hand for
 * timestamps written with leading zeros) and then perhaps changed. Signing also puts the
 * signing secret in the Node entry's key cache, as a first verification would.
 */
export const verificationCall: fc.Arbitrary<VerificationCall> = fc
  .tuple(
    validSecret,
    fc.oneof(
      { weight: 6, arbitrary: fc.constant('same') },
      { weight: 1, arbitrary: validSecret },
      {
        weight: 1,
        arbitrary: fc.constantFrom('', '\uD800', null, 42, [], ['same'], ['other', 'same']),
      },
      { weight: 1, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 8 }) },
    ),
    payloadArbitrary,
    mostly(true, fc.boolean()),
    fc.oneof(
      fc.integer({ min: 0, max: 99_999_999_999 }),
      fc.constantFrom(0, 7, T, Math.floor(Date.now() / 1000)),
    ),
    mostly(0, fc.nat(mutations.length - 1)),
    fc.nat(),
    fc.string({ maxLength: 4 }),
    mostly(0, fc.nat(headerForms.length - 1)),
    timeOptions,
    mostly(true, fc.boolean()),
    mostly('', fc.stringMatching(/^0[0-9]{0,12}$/)),
  )
  .map(
    ([
      signingSecret,
      secretChoice,
      payload,
      signSamePayload,
      anyTimestamp,
      mutation,
      at,
      text,
      form,
      time,
      optionsGiven,
      timestampText,
    ]) => {
      const timestamp = timestampText ? Number(timestampText) : anyTimestamp;
      const resolve = (choice: unknown): unknown =>
        choice === 'same' ? signingSecret : Array.isArray(choice) ? choice.map(resolve) : choice;
      const secret = resolve(secretChoice);
      const signable =
        signSamePayload &&
        (typeof payload === 'string' ? payload.isWellFormed() : payload instanceof Uint8Array)
          ? (payload as string | Uint8Array)
          : BODY;
      // Signing also puts the signing secret in the key cache, as a first verification would.
      const signed = timestampText
        ? // A sender that signs the timestamp's digits as written, leading zeros included.
          `t=${timestampText},v1=${createHmac('sha256', signingSecret)
            .update(`${timestampText}.`)
            .update(signable)
            .digest('hex')}`
        : signPayload(signable, { secret: signingSecret, timestamp });
      const header = headerForms[form]?.(mutations[mutation]?.(signed, at, text) ?? signed);
      const now =
        time.nowForm === 'edge'
          ? timestamp +
            time.edgeSide *
              ((typeof time.tolerance === 'number' && time.tolerance >= 0 ? time.tolerance : 300) +
                time.edge)
          : time.nowForm === 'clock'
            ? undefined
            : time.nowForm === 'date'
              ? new Date((timestamp + time.nowOffset) * 1000)
              : time.nowForm === 'NaN'
                ? Number.NaN
                : time.nowForm === 'ms'
                  ? (timestamp + time.nowOffset) * 1000
                  : time.nowForm === 'null'
                    ? null
                    : timestamp + time.nowOffset;
      const options = (optionsGiven
        ? { secret, tolerance: time.tolerance, ignoreTimestamp: time.ignoreTimestamp, now }
        : undefined) as unknown as VerifyOptions;
      return [payload, header, options] as VerificationCall;
    },
  );

/** What a synchronous call gave: its result, or the code or `RangeError` message it threw. */
export type Outcome = { ok: unknown } | { code: string } | { rangeError: string };

function outcomeOfError(error: unknown): Outcome {
  if (WebhookVerificationError.isInstance(error)) return { code: error.code };
  if (error instanceof RangeError) return { rangeError: error.message };
  throw error;
}

/** The outcome of a synchronous call. */
export function outcome(run: () => unknown): Outcome {
  try {
    return { ok: run() };
  } catch (error) {
    return outcomeOfError(error);
  }
}

/** The outcome of an asynchronous call. */
export async function outcomeOf(promise: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: await promise };
  } catch (error) {
    return outcomeOfError(error);
  }
}
