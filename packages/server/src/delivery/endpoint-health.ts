import { recordAuditEntry } from '../audit/audit-log.js';
import type { Clock } from '../clock.js';
import type { IdGenerator } from '../ids.js';
import type { Queryable } from '../storage/database.js';
import {
  clearEndpointFailure,
  disableEndpointFor,
  recordEndpointFailure,
} from '../stores/endpoint-health-store.js';
import { endpointStatus, recordEndpointEvent } from './endpoint-events.js';
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
 * run of failures (`endpoint.recovered`); a failure starts (`endpoint.failing`) or extends it,
 * and a `410 Gone` or a run longer than `autoDisableAfterMs` disables the endpoint, audited as
 * `endpoint.disabled` by the system, with an `endpoint.disabled` event. The events are written
 * for an active endpoint only, each once per change of state, however many workers record
 * attempts of the endpoint at once (see `stores/endpoint-health-store.ts`).
 */
export async function recordEndpointHealth(
  transaction: Queryable,
  attempt: EndpointAttempt,
  dependencies: { autoDisableAfterMs: number; clock: Clock; newId: IdGenerator },
): Promise<void> {
  const { endpointId, deliveryId, result, now } = attempt;
  const { clock, newId } = dependencies;
  if (result.outcome === 'delivered') {
    const recovered = await clearEndpointFailure(transaction, endpointId);
    if (recovered?.state !== 'active') return;
    await recordEndpointEvent(
      transaction,
      { kind: 'endpoint.recovered', status: { ...endpointStatus(recovered), state: 'active' } },
      { clock, newId },
    );
    return;
  }
  const failure = await recordEndpointFailure(transaction, { id: endpointId, now: new Date(now) });
  if (failure?.endpoint.state !== 'active') return;
  const { endpoint, started } = failure;
  const failingSince = endpoint.failing_since as string;
  if (started) {
    await recordEndpointEvent(
      transaction,
      { kind: 'endpoint.failing', status: endpointStatus(endpoint) },
      { clock, newId },
    );
  }
  const reason =
    result.status === 410
      ? 'gone'
      : now - Date.parse(failingSince) >= dependencies.autoDisableAfterMs
        ? 'failing'
        : undefined;
  if (reason === undefined) return;
  const disabled = await disableEndpointFor(transaction, {
    id: endpointId,
    reason,
    now: new Date(now),
  });
  if (!disabled) return;
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
        failingSince,
      },
    },
    { clock, newId },
  );
  await recordEndpointEvent(
    transaction,
    { kind: 'endpoint.disabled', status: endpointStatus(disabled, { reason }) },
    { clock, newId },
  );
}
