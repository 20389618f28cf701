import { hash, verify } from '@node-rs/argon2';

/** The shortest password accepted, in characters (Unicode code points). */
export const MIN_PASSWORD_LENGTH = 12;
/** The longest password accepted, in characters: hashing cost stays bounded. */
export const MAX_PASSWORD_LENGTH = 1024;

// OWASP's Password Storage Cheat Sheet (argon2id): 19 MiB of memory, 2 iterations, 1 lane.
const argon2idOptions = {
  // Algorithm.Argon2id: a const enum, which isolated modules cannot read.
  algorithm: 2,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
} as const;

/**
 * @internal Why a password is refused, for people; `undefined` when it is acceptable
 * (12 to 1,024 characters).
 */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) {
    return `A password has at least ${MIN_PASSWORD_LENGTH} characters.`;
  }
  if (length > MAX_PASSWORD_LENGTH) {
    return `A password has at most ${MAX_PASSWORD_LENGTH} characters.`;
  }
  return undefined;
}

/** @internal Hashes a password with argon2id (OWASP's parameters) into a PHC string. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, argon2idOptions);
}

// A hash of a password nobody knows: checking a sign-in for an unknown e-mail against it costs
// the same time as checking a wrong password, so the timing does not tell which it was. Made
// once, when the web application starts (see prepareDecoyHash), so that not even the first
// unknown e-mail costs a hash more than a wrong password does.
let decoyHash: Promise<string> | undefined;

/**
 * @internal Makes the decoy hash now, in the background (argon2 runs off the main thread), so
 * that the first sign-in with an unknown e-mail does not pay for it. Idempotent.
 */
export function prepareDecoyHash(): Promise<string> {
  decoyHash ??= hashPassword('decoy password that matches nothing');
  return decoyHash;
}

/**
 * @internal Whether `password` matches `passwordHash`. Without a hash (an unknown e-mail, a user
 * who never chose a password) it checks against a decoy hash, which takes the same time, and
 * answers `false`.
 */
export async function verifyPassword(
  passwordHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (!passwordHash) {
    await verify(await prepareDecoyHash(), password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}
