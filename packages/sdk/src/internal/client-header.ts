// The `X-FollowUp-Client` header (and, where the runtime lets a client set it, `User-Agent`):
// which SDK version on which runtime made a call, so that the server's logs can tell.

declare const __FOLLOWUP_SDK_VERSION__: string;

/** This SDK's version, from its package.json at build time. */
export const SDK_VERSION: string =
  typeof __FOLLOWUP_SDK_VERSION__ === 'string' ? __FOLLOWUP_SDK_VERSION__ : '0.0.0-development';

interface RuntimeGlobals {
  Deno?: { version?: { deno?: string } };
  Bun?: { version?: string };
  process?: { versions?: { node?: string } };
  navigator?: { userAgent?: string };
  document?: unknown;
}

/** What a runtime does not tell: the version part of `workerd/unknown` or `browser/unknown`. */
const UNKNOWN = 'unknown';

/**
 * `<name>/<version>`, always with both parts: a version the runtime does not tell, or one that is
 * not a plain version token (it goes into a header), is `unknown`.
 */
function runtimeOf(name: string, version: unknown): string {
  const plain = typeof version === 'string' && /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$/.test(version);
  return `${name}/${plain ? version : UNKNOWN}`;
}

/**
 * `<runtime>/<version>` of the runtime running this code: `node/24.1.0`, `deno/2.4.0`,
 * `bun/1.2.0`, and where the runtime does not tell its version, `workerd/unknown`,
 * `browser/unknown` (nothing is parsed from a browser's user agent) or `unknown/unknown`; and
 * whether a client may set `User-Agent` there (not in a browser, where it is the browser's own).
 */
export function detectRuntime(globals: RuntimeGlobals = globalThis as RuntimeGlobals): {
  runtime: string;
  userAgentAllowed: boolean;
} {
  const deno = globals.Deno?.version?.deno;
  if (typeof deno === 'string') return { runtime: runtimeOf('deno', deno), userAgentAllowed: true };
  const bun = globals.Bun?.version;
  if (typeof bun === 'string') return { runtime: runtimeOf('bun', bun), userAgentAllowed: true };
  if (globals.navigator?.userAgent === 'Cloudflare-Workers') {
    return { runtime: runtimeOf('workerd', undefined), userAgentAllowed: true };
  }
  const node = globals.process?.versions?.node;
  if (typeof node === 'string') return { runtime: runtimeOf('node', node), userAgentAllowed: true };
  if (globals.document !== undefined) {
    return { runtime: runtimeOf('browser', undefined), userAgentAllowed: false };
  }
  return { runtime: runtimeOf(UNKNOWN, undefined), userAgentAllowed: false };
}

/**
 * The headers that name this client: `x-followup-client: @followup/sdk/<version>
 * <runtime>/<version>`,
 * and the same as `user-agent` where the runtime allows it.
 */
export function clientHeaders(globals?: RuntimeGlobals): Record<string, string> {
  const { runtime, userAgentAllowed } = detectRuntime(globals);
  const value = `@followup/sdk/${SDK_VERSION} ${runtime}`;
  return userAgentAllowed
    ? { 'x-followup-client': value, 'user-agent': value }
    : { 'x-followup-client': value };
}

/** Reads an environment variable where `process.env` exists (never throws, e.g. on Deno without --allow-env). */
export function environmentVariable(name: string): string | undefined {
  try {
    const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
      ?.env?.[name];
    return typeof value === 'string' && value !== '' ? value : undefined;
  } catch {
    return undefined;
  }
}
