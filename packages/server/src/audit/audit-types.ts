import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';

/** Who did an audited action. */
export interface AuditActor {
  /**
   * A service account through the API, a person signed in to the web application (or using its
   * session cookie on `/api`), an operator through the CLI, or the server itself.
   */
  type: 'service_account' | 'user' | 'operator' | 'system';
  /** The service account's `sa_…` or the user's `usr_…` id. */
  id?: string;
}

/** What an audited action was done to. */
export interface AuditTarget {
  /** The kind of record, such as `token` or `contact`. */
  type: string;
  /** The record's id. */
  id: string;
}

/** One entry of the audit log, as the API returns it. */
export interface AuditEntry {
  /** `aud_…` */
  id: string;
  /** When it happened, ISO 8601 UTC. */
  occurredAt: string;
  /** What happened, such as `token.issued`, `token.revoked` or `contact.deleted`. */
  action: string;
  /** Who did it. */
  actor: AuditActor;
  /** What it was done to. */
  target: AuditTarget;
  /** Details of the action; never a secret, a token or a request body. */
  metadata: Record<string, unknown>;
}

/** What to record with `recordAuditEntry`. */
export interface NewAuditEntry {
  /** What happened, such as `token.revoked`. */
  action: string;
  /** Who did it. */
  actor: AuditActor;
  /** What it was done to. */
  target: AuditTarget;
  /** Details; never a secret, a token or a request body. */
  metadata?: Record<string, unknown>;
}

/** The clock and id generator that audit writes use. */
export interface AuditDependencies {
  /** Gives `occurredAt`. */
  clock: Clock;
  /** Gives the `aud_…` id. */
  newId: IdGenerator;
}
