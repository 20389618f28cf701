import type { DeliveryInfo } from '../../delivery/deliveries.js';

/** @internal How a delivery's state reads in the console: a badge, words first, colour second. */
export interface DeliveryStatus {
  /** `Delivered`, `Retrying`, `Waiting` or `Dead`. */
  label: string;
  /** The badge's look (a class of `.badge`); the label alone says the same. */
  tone: 'ok' | 'warning' | 'danger' | 'off';
}

/**
 * @internal The badge of a delivery: delivered; pending before its first attempt (waiting) or
 * after a failed one (retrying); dead, its retries spent.
 */
export function deliveryStatus(delivery: Pick<DeliveryInfo, 'state' | 'attempts'>): DeliveryStatus {
  switch (delivery.state) {
    case 'delivered':
      return { label: 'Delivered', tone: 'ok' };
    case 'dead':
      return { label: 'Dead', tone: 'danger' };
    default:
      return delivery.attempts > 0
        ? { label: 'Retrying', tone: 'warning' }
        : { label: 'Waiting', tone: 'off' };
  }
}

/** @internal The badge's template source (data: `status`, a {@link DeliveryStatus}). */
export const deliveryStatusPartial = `<span class="badge <%= status.tone %>"><%= status.label %></span>`;

/**
 * @internal A JSON text pretty-printed (two spaces) for a `<pre>`; a text that is not JSON as
 * it is.
 */
export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** @internal Characters of a receiver's answer shown in a table of attempts. */
export const ANSWER_START_LENGTH = 200;

/** @internal The start of a receiver's answer: its first {@link ANSWER_START_LENGTH} characters. */
export function answerStart(answer: string | null): string {
  if (answer === null) return '';
  const characters = [...answer];
  return characters.length > ANSWER_START_LENGTH
    ? `${characters.slice(0, ANSWER_START_LENGTH).join('')}…`
    : answer;
}
