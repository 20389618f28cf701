import { randomFillSync } from 'node:crypto';

/**
 * The type prefixes of the identifiers the server creates; those a client sees are listed in
 * docs/api-contract.md, "Resources and ids".
 */
export type IdPrefix =
  | 'sa'
  | 'tok'
  | 'con'
  | 'deal'
  | 'seq'
  | 'cmp'
  | 'usr'
  | 'msg'
  | 'rcpt'
  | 'aud'
  | 'evt'
  | 'we'
  | 'dlv'
  | 'rpl'
  | 'req'
  | 'flash'
  | 'ses'
  | 'lnk'
  | 'plk'
  | 'pss';

/** Options of {@link createIdGenerator}. */
export interface IdGeneratorOptions {
  /** Milliseconds since the Unix epoch; defaults to `Date.now`. */
  now?: () => number;
  /**
   * Fills a buffer with random bytes; defaults to `crypto.randomFillSync`, drawn 1 KB at a time
   * (one call per ~100 ids instead of one per id).
   */
  randomFill?: (bytes: Uint8Array) => void;
}

// Random bytes for ids, filled 1 KB at a time: one call into the CSPRNG per ~100 ids (ids are not
// secrets; the bytes come from the same generator either way).
const pool = new Uint8Array(1024);
let poolUsed = pool.length;
function pooledRandomFill(bytes: Uint8Array): void {
  if (bytes.length > pool.length) {
    randomFillSync(bytes);
    return;
  }
  if (poolUsed + bytes.length > pool.length) {
    randomFillSync(pool);
    poolUsed = 0;
  }
  bytes.set(pool.subarray(poolUsed, poolUsed + bytes.length));
  poolUsed += bytes.length;
}

/** Makes identifiers: `prefix_` then a ULID, so that ids sort by creation time. */
export type IdGenerator = (prefix: IdPrefix) => string;

const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const maxTime = 2 ** 48 - 1;

// A whole number below 32 ** `digits` (and 2 ** 53) as that many base32 digits.
function encodeDigits(number: number, digits: number): string {
  let value = number;
  let text = '';
  for (let index = 0; index < digits; index++) {
    text = alphabet[value % 32] + text;
    value = Math.floor(value / 32);
  }
  return text;
}

function encodeTime(time: number): string {
  return encodeDigits(time, 10);
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits as 16 base32 digits, most significant first: two halves of 40 bits, each exact in a
  // double and 8 digits long (numbers, not BigInt, which allocates on every step).
  return encodeForty(bytes, 0) + encodeForty(bytes, 5);
}

// Bytes `start` to `start + 4` as 8 base32 digits.
function encodeForty(bytes: Uint8Array, start: number): string {
  const low =
    (((bytes[start + 1] as number) << 24) |
      ((bytes[start + 2] as number) << 16) |
      ((bytes[start + 3] as number) << 8) |
      (bytes[start + 4] as number)) >>>
    0;
  return encodeDigits((bytes[start] as number) * 2 ** 32 + low, 8);
}

/**
 * Creates an identifier generator: a type prefix, `_`, then a ULID (48-bit millisecond time and
 * 80 random bits in Crockford base32). Within one millisecond the random part is incremented, so
 * ids from one generator are strictly increasing as strings, even when the clock stands still or
 * steps back.
 *
 * @example
 * ```ts
 * const newId = createIdGenerator();
 * newId('con'); // 'con_01JD3Q7Z6XK8M4N2P5R7T9V1W3'
 * ```
 */
export function createIdGenerator(options: IdGeneratorOptions = {}): IdGenerator {
  const now = options.now ?? Date.now;
  const randomFill = options.randomFill ?? pooledRandomFill;
  let lastTime = -1;
  const lastRandom = new Uint8Array(10);
  return (prefix) => {
    let time = Math.floor(now());
    if (!Number.isSafeInteger(time) || time < 0 || time > maxTime) {
      throw new RangeError('The clock gave a time a ULID cannot hold.');
    }
    if (time <= lastTime) {
      time = lastTime;
      let index = lastRandom.length - 1;
      while (index >= 0 && lastRandom[index] === 255) {
        lastRandom[index] = 0;
        index--;
      }
      if (index < 0) {
        // 2^80 ids in one millisecond: move on to the next millisecond rather than repeat.
        time++;
        randomFill(lastRandom);
      } else {
        lastRandom[index] = (lastRandom[index] as number) + 1;
      }
    } else {
      randomFill(lastRandom);
    }
    lastTime = time;
    return `${prefix}_${encodeTime(time)}${encodeRandom(lastRandom)}`;
  };
}
