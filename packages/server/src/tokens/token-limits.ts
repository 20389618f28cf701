/** The longest label of a token, in characters. */
export const MAX_TOKEN_LABEL_LENGTH = 100;

/** The longest grace period of {@link AccountStore.rollToken}: 30 days, in seconds. */
export const MAX_ROLL_GRACE_SECONDS = 30 * 86_400;

/**
 * The longest lifetime a token can be issued with: ten years, in seconds. A longer `--ttl` is
 * refused; a token meant never to expire is issued without one.
 */
export const MAX_TOKEN_TTL_SECONDS = 10 * 365 * 24 * 60 * 60;
