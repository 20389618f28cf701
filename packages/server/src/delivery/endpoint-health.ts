import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import {
  clearEndpointFailure,
  disableEndpointFor,
  recordEndpointFailure,
} from '../stores/webhook-endpoint-store.js';
import type { DeliveryAttemptResult } from './post-delivery.js';

/** @internal What {@link recordEndpointHealth} is told about an attempt. */
export interface EndpointAttempt {
  /** The endpoint the attempt went to. */
  endpointId: string;
  /** The delivery it carried, named in the audit entry of a disabling. */
  deliveryId: string;
  /** How it ended. */
  result: DeliveryAttemptResult;
  /** When it was recorded, by the worker's clock. */
  now: number;
}

/**
 * @internal After an attempt, in the transaction that records it: a success ends the endpoint's
 * run of failures; a failure starts or extends it, and a `410 Gone` or a run longer than
 * `autoDisableAfterMs` disables the endpoint, audited as `endpoint.disabled` by the system.
 */
export async function recordEndpointHealth(
  transaction: Queryable,
  attempt: EndpointAttempt,
  dependencies: { autoDisableAfterMs: number; clock: Clock; newId: IdGenerator },
): Promise<void> {
  const { endpointId, deliveryId, result, now } = attempt;
  if (result.outcome === 'delivered') {
    await clearEndpointFailure(transaction, endpointId);
    return;
  }
  const endpoint = await recordEndpointFailure(transaction, { id: endpointId, now: new Date(now) });
  if (endpoint?.state !== 'active') return;
  const reason =
    result.status === 410
      ? 'gone'
      : now - Date.parse(endpoint.failing_since) >= dependencies.autoDisableAfterMs
        ? 'failing'
        : undefined;
  if (reason === undefined) return;
  await disableEndpointFor(transaction, { id: endpointId, reason, now: new Date(now) });
  await recordAuditEntry(
    transaction,
    {
      action: 'endpoint.disabled',
      actor: { type: 'system' },
      target: { type: 'webhook_endpoint', id: endpointId },
      metadata: {
        reason,
        deliveryId,
        ...(result.status === undefined ? {} : { status: result.status }),
        failingSince: endpoint.failing_since,
      },
    },
    { clock: dependencies.clock, newId: dependencies.newId },
  );
}
