/** What the server answered an inbound EHR webhook, as recorded on its receipt. */
export const receiptVerdicts = [
  'valid',
  'replayed',
  'invalid_signature',
  'unknown_vendor',
  'vendor_not_supported',
] as const;

/** One of {@link receiptVerdicts}. */
export type ReceiptVerdictName = (typeof receiptVerdicts)[number];
