/**
 * @internal Tokens people can manage: an optional label, when a token was last used (written at
 * most once a minute per token, never on every request), and a disabled state for service
 * accounts (disabling one revokes every token it holds and refuses new ones).
 */
export const tokenManagement = `
ALTER TABLE tokens ADD COLUMN label text;
ALTER TABLE tokens ADD COLUMN last_used_at timestamptz;
ALTER TABLE tokens ADD COLUMN replaced_by text;
ALTER TABLE service_accounts ADD COLUMN disabled_at timestamptz;
`;
