// What each runtime's fetch rejects with when the connection fails (a `TypeError`, as the Fetch
// standard says, but so is a request fetch refuses to build, e.g. a header with a newline: that
// one is a bug and must not be retried, hence the messages).
const NETWORK_MESSAGES = new Set([
  'fetch failed', // Node (undici)
  'terminated', // Node (undici), the connection closed mid-response
  'Failed to fetch', // Chromium
  'network error', // Chromium, older
  'NetworkError when attempting to fetch resource.', // Firefox
  'Load failed', // Safari
  'The Internet connection appears to be offline.', // Safari
  'Network connection lost', // Cloudflare Workers
  ' A network error occurred.', // Bun (the leading space is Bun's)
  'Unable to connect. Is the computer able to access the url?', // Bun
  'The socket connection was closed unexpectedly. For more information, pass `verbose: true` in the second argument to fetch()', // Bun
]);

/**
 * True when `error` is how a fetch implementation reports a failed connection: a `TypeError`
 * with one of the runtimes' network messages (Deno's start with `error sending request`, and
 * Chromium may add the host in parentheses).
 */
export function isNetworkError(error: unknown): boolean {
  if (!(error instanceof TypeError) && !isForeignTypeError(error)) return false;
  const message = (error as { message?: unknown }).message;
  if (typeof message !== 'string') return false;
  if (NETWORK_MESSAGES.has(message)) return true;
  return (
    message.startsWith('error sending request') ||
    (message.startsWith('Failed to fetch (') && message.endsWith(')')) ||
    (message.startsWith('Load failed (') && message.endsWith(')'))
  );
}

// A TypeError from another realm (an iframe's or a vm context's fetch) is not `instanceof` ours.
function isForeignTypeError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    Object.prototype.toString.call(error) === '[object Error]' &&
    (error as { name?: unknown }).name === 'TypeError'
  );
}
