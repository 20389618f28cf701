/**
 * @internal The delivery id of a forwarded event: `dlv_` and the event's own id, so that every
 * retry of it, and a run resumed with `--from`, sends the same id, as the server does for a
 * delivery (a receiver deduplicates on it).
 */
export function forwardedDeliveryId(eventId: string): string {
  return `dlv_listen_${eventId.replace(/^evt_/, '')}`;
}
