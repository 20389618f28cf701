import { createDeliveryStore, type DeliveryInfo } from '../delivery/deliveries.js';
import { FollowUpServerError } from '../errors.js';
import { listOutput, type OperatorCommand, output, pageOf } from './operator-command.js';
import { type OptionName, PAGE_OPTIONS, required, UsageError } from './usage.js';
import { wakeRunningWorkers } from './wake-running-workers.js';

function deliveryLine(delivery: DeliveryInfo): string {
  const last =
    delivery.lastStatus !== null
      ? `  last ${delivery.lastStatus}`
      : delivery.lastError !== null
        ? `  last ${delivery.lastError}`
        : '';
  const next =
    delivery.state === 'pending' && delivery.nextAttemptAt
      ? `  next ${delivery.nextAttemptAt}`
      : '';
  return (
    `${delivery.id}  ${delivery.state.padEnd(9)}  ${delivery.event}  ${delivery.endpointId}  ` +
    `${delivery.attempts} attempt${delivery.attempts === 1 ? '' : 's'}${last}${next}\n`
  );
}

/** @internal `deliveries …`: outbound deliveries, their attempts, and sending them again. */
export const deliveryCommands: Readonly<Record<string, OperatorCommand>> = {
  async 'deliveries list'(values, database) {
    const page = pageOf(values);
    const deliveries = await createDeliveryStore({ database }).list({
      ...page,
      ...(values.state === undefined ? {} : { state: values.state }),
      ...(values.endpoint === undefined ? {} : { endpointId: values.endpoint }),
    });
    return listOutput(deliveries, deliveryLine, page);
  },

  async 'deliveries show'(values, database) {
    const store = createDeliveryStore({ database });
    const id = required(values, 'delivery');
    const delivery = await store.get(id);
    if (!delivery) {
      throw new FollowUpServerError({ code: 'delivery_not_found', message: `No delivery ${id}.` });
    }
    const attempts = await store.attempts(id);
    const lines = attempts.map(
      (attempt) =>
        `  ${attempt.startedAt}  ${attempt.status ?? '-'}  ${attempt.durationMs} ms  ${attempt.error ?? ''}\n`,
    );
    return output(
      { ...delivery, attempts },
      `${deliveryLine(delivery)}${lines.join('') || '  no attempt yet\n'}`,
    );
  },

  async 'deliveries recover'(values, database) {
    const endpointId = required(values, 'endpoint');
    const sinceText = required(values, 'since');
    const since = new Date(sinceText);
    if (Number.isNaN(since.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(sinceText)) {
      throw new UsageError('--since is an ISO 8601 time, such as 2026-03-01T00:00:00Z.');
    }
    const recovered = await createDeliveryStore({ database }).recover({ endpointId, since });
    if (recovered.length > 0) await wakeRunningWorkers(database);
    return output(
      recovered,
      `${recovered.length} failed deliveries of ${endpointId} since ${since.toISOString()} are due again now, oldest first\n`,
    );
  },

  async 'deliveries retry'(values, database) {
    const delivery = await createDeliveryStore({ database }).retry(required(values, 'delivery'));
    await wakeRunningWorkers(database);
    return output(delivery, `${delivery.id} is due again now\n`);
  },
};

/** @internal The options each `deliveries …` command takes (see `operatorCommandOptions`). */
export const deliveryCommandOptions: Readonly<Record<string, readonly OptionName[]>> = {
  'deliveries list': ['state', 'endpoint', ...PAGE_OPTIONS],
  'deliveries show': ['delivery'],
  'deliveries recover': ['endpoint', 'since'],
  'deliveries retry': ['delivery'],
};
