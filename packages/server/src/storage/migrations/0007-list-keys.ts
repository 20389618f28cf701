/**
 * @internal What contact and deal lists need: a change sequence per table (the order of
 * `sort=updatedAt` and of change sync), tombstones of deleted contacts, and the indexes behind
 * `q`, `email` and `updatedSince`.
 *
 * `change_seq` is taken from the table's sequence by every insert and update, while the writer
 * holds the table's change lock (see change-order.ts): so its order is commit order, and a walk by
 * `change_seq` never passes a change that commits later. Existing rows are numbered in
 * `updated_at, id` order.
 */
export const listKeys = `
CREATE SEQUENCE contact_change_seq;
ALTER TABLE contacts ADD COLUMN change_seq bigint;
UPDATE contacts SET change_seq = ordered.n
  FROM (SELECT id, row_number() OVER (ORDER BY updated_at, id) AS n FROM contacts) AS ordered
 WHERE contacts.id = ordered.id;
SELECT setval('contact_change_seq', COALESCE((SELECT max(change_seq) FROM contacts), 0) + 1, false);
ALTER TABLE contacts
  ALTER COLUMN change_seq SET DEFAULT nextval('contact_change_seq'),
  ALTER COLUMN change_seq SET NOT NULL;
CREATE UNIQUE INDEX contacts_change_seq ON contacts (change_seq);
CREATE INDEX contacts_updated_at ON contacts (updated_at);
-- Case-insensitive prefix search (q) and exact e-mail match: btree on lower(column) with
-- text_pattern_ops, which serves both = and the ~>=~ / ~<~ range of a prefix.
CREATE INDEX contacts_lower_first_name ON contacts (lower(first_name) text_pattern_ops);
CREATE INDEX contacts_lower_last_name ON contacts (lower(last_name) text_pattern_ops);
CREATE INDEX contacts_lower_email ON contacts (lower(email) text_pattern_ops);

-- A deleted contact leaves its id here, in the same change sequence, so that change sync sees it.
CREATE TABLE contact_tombstones (
  change_seq bigint NOT NULL UNIQUE DEFAULT nextval('contact_change_seq'),
  id text PRIMARY KEY,
  deleted_at timestamptz NOT NULL
);

CREATE SEQUENCE deal_change_seq;
ALTER TABLE deals ADD COLUMN change_seq bigint;
UPDATE deals SET change_seq = ordered.n
  FROM (SELECT id, row_number() OVER (ORDER BY updated_at, id) AS n FROM deals) AS ordered
 WHERE deals.id = ordered.id;
SELECT setval('deal_change_seq', COALESCE((SELECT max(change_seq) FROM deals), 0) + 1, false);
ALTER TABLE deals
  ALTER COLUMN change_seq SET DEFAULT nextval('deal_change_seq'),
  ALTER COLUMN change_seq SET NOT NULL;
CREATE UNIQUE INDEX deals_change_seq ON deals (change_seq);
CREATE INDEX deals_updated_at ON deals (updated_at);
`;
