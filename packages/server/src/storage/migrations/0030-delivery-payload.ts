/**
 * @internal What body a delivery carries, decided when it is queued (by the fan-out, a test
 * delivery or a replay) from its endpoint's `payload`: `full`, the event's data, or `thin`, the
 * event's id and its record's id and object type only. Kept on the delivery so that every
 * attempt, and `GET /api/deliveries/{id}`, has the same bytes whatever the endpoint says later;
 * the deliveries queued before this migration carried full bodies.
 */
export const deliveryPayload = `
ALTER TABLE deliveries ADD COLUMN payload text NOT NULL DEFAULT 'full'
  CHECK (payload IN ('full', 'thin'));
`;
