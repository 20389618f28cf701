// Both entries of the package behind one asynchronous face, so every behavioural test runs
// against the node:crypto entry and the Web Crypto entry alike.
import * as node from '../src/index.js';
import * as web from '../src/web.js';

type Node = typeof node;

export interface Entry {
  readonly name: 'node' | 'web';
  signPayload(...args: Parameters<Node['signPayload']>): Promise<string>;
  verifySignature(
    ...args: Parameters<Node['verifySignature']>
  ): Promise<ReturnType<Node['verifySignature']>>;
  safeVerifySignature(
    ...args: Parameters<Node['safeVerifySignature']>
  ): Promise<ReturnType<Node['safeVerifySignature']>>;
  verifyVendorSignature(
    ...args: Parameters<Node['verifyVendorSignature']>
  ): Promise<ReturnType<Node['verifyVendorSignature']>>;
  verifyStandardWebhook(
    ...args: Parameters<Node['verifyStandardWebhook']>
  ): Promise<ReturnType<Node['verifyStandardWebhook']>>;
  signVendorPayload(...args: Parameters<Node['signVendorPayload']>): Promise<string>;
}

// The synchronous entry is wrapped so that a throw becomes a rejection, as in the web entry.
export const entries: readonly Entry[] = [
  {
    name: 'node',
    signPayload: async (...args) => node.signPayload(...args),
    verifySignature: async (...args) => node.verifySignature(...args),
    safeVerifySignature: async (...args) => node.safeVerifySignature(...args),
    verifyVendorSignature: async (...args) => node.verifyVendorSignature(...args),
    verifyStandardWebhook: async (...args) => node.verifyStandardWebhook(...args),
    signVendorPayload: async (...args) => node.signVendorPayload(...args),
  },
  {
    name: 'web',
    signPayload: web.signPayload,
    verifySignature: web.verifySignature,
    safeVerifySignature: web.safeVerifySignature,
    verifyVendorSignature: web.verifyVendorSignature,
    verifyStandardWebhook: web.verifyStandardWebhook,
    signVendorPayload: web.signVendorPayload,
  },
];

/** Resolves to the error's code, or fails the test when the promise resolves. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (node.WebhookVerificationError.isInstance(error)) return error.code;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError, but verification succeeded');
}

/** The code of the WebhookVerificationError that `run` throws; fails the test otherwise. */
export function codeOfSync(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (node.WebhookVerificationError.isInstance(error)) return error.code;
    throw error;
  }
  throw new Error('expected a WebhookVerificationError, but nothing was thrown');
}
