/**
 * @internal Bounded EHR receipts and replay detection. A receipt records the full size and the
 * SHA-256 of the body it was sent, whatever part of the body it keeps (none for an unknown or
 * unsupported vendor, at most 64 KiB for a bad signature). Each accepted delivery's digest is
 * kept (for at least 24 hours) so that a replay is recognised and not dispatched again.
 */
export const ehrReceiptBounds = `
-- The size and SHA-256 of the body as sent; NULL on rows written without them (the whole body
-- is then in raw_body).
ALTER TABLE ehr_receipts ADD COLUMN body_size integer;
ALTER TABLE ehr_receipts ADD COLUMN body_sha256 bytea;
ALTER TABLE ehr_receipts ADD COLUMN replay_of text;
UPDATE ehr_receipts SET body_size = octet_length(raw_body), body_sha256 = sha256(raw_body);

-- The SHA-256 of what the vendor signed (the body, or the timestamp and the body), per vendor.
CREATE TABLE ehr_delivery_digests (
  vendor text NOT NULL,
  digest bytea NOT NULL CHECK (octet_length(digest) = 32),
  receipt_id text NOT NULL,
  received_at timestamptz NOT NULL,
  PRIMARY KEY (vendor, digest)
);
CREATE INDEX ehr_delivery_digests_received_at ON ehr_delivery_digests (received_at);
`;
