import { hash } from '@node-rs/argon2';

/**
 * An argon2id hash of `password` at the lowest cost argon2 allows (8 KiB, one pass), for the
 * users that tests write straight into the database. A PHC string carries its own parameters and
 * `verifyPassword` reads them there, so signing in with it runs the production code, in well
 * under a millisecond instead of the tens of milliseconds OWASP's cost takes. That cost is what
 * `hashPassword` writes, tested where a password is chosen (passwords.test.ts, and
 * web-app.test.ts through the page) and never by a fixture.
 */
export function testPasswordHash(password: string): Promise<string> {
  // Algorithm.Argon2id: a const enum, which isolated modules cannot read.
  return hash(password, { algorithm: 2, memoryCost: 8, timeCost: 1, parallelism: 1 });
}
