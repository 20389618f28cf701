/**
 * The orders of a contacts or deals list (`sort`): `-` is newest first. The wire contract, which
 * the server's list query imports; any other value is 400 `validation_failed`, and the SDK
 * refuses it before any request.
 *
 * @example
 * ```ts
 * for (const sort of LIST_SORT_VALUES) console.log(sort); // e.g. to fill a menu
 * ```
 */
export const LIST_SORT_VALUES = ['createdAt', '-createdAt', 'updatedAt', '-updatedAt'] as const;
