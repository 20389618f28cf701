/**
 * @internal The index behind a deals list's `q` (a case-insensitive prefix of the title), as
 * contacts have theirs (0007): a btree on `lower(title)` with `text_pattern_ops`, which serves
 * the `~>=~` / `~<~` byte range that `prefixSource` (`stores/resource-list-store.ts`) reads, so
 * that a search costs what it matches, never a scan of the table.
 */
export const dealTitleSearch = `
CREATE INDEX deals_lower_title ON deals (lower(title) text_pattern_ops);
`;
