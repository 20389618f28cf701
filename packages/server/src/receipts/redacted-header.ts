import { secretHeaderNames } from '../secret-headers.js';

// Headers that carry credentials or signatures: the one list (the interface's and every vendor
// profile's signature header; receipts already store them as [redacted]). Any header whose
// name says secret, signature, token or auth is hidden too.
const redactedNames = new Set(secretHeaderNames());

/** @internal Whether a header's value is hidden on receipt pages. */
export function isRedactedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return redactedNames.has(lower) || /secret|signature|token|auth|api-?key|password/.test(lower);
}
