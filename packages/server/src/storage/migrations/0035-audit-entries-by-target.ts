/**
 * @internal The index behind a contact's timeline (`stores/contact-timeline-store.ts`) and its
 * erasure (`stores/contact-erasure-store.ts`), which read the audit entries about a contact and
 * its deals: `target_type = … AND target_id = …`, newest first (`occurred_at DESC, id DESC`, the
 * timeline's order). Without it each read scanned the whole audit log, which only grows; with it
 * a timeline costs the entries it shows.
 */
export const auditEntriesByTarget = `
CREATE INDEX audit_entries_target ON audit_entries (target_type, target_id, occurred_at DESC, id DESC);
`;
