/**
 * @internal Replays of an endpoint's events (`POST /api/webhook-endpoints/{id}/replay`): the
 * replay's record, and its deliveries marked with it (`deliveries.replay_id`), written in one
 * transaction. A replayed event is a new delivery of an event that may have one to the endpoint
 * already, so one delivery per event and endpoint now holds for the fan-out's deliveries only
 * (`replay_id IS NULL`), and a replay finds an event's fan-out delivery by that index and its
 * replayed ones by `deliveries_replayed_event`; both partial indexes of replayed deliveries
 * cost nothing to the fan-out's inserts. `deliveries_replay` serves a replay's progress (its
 * pending ones). A replay without `until` took every event written before it.
 */
export const webhookReplays = `
CREATE TABLE webhook_replays (
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  since timestamptz NOT NULL,
  until timestamptz CHECK (until > since),
  kinds text[],
  states text[] NOT NULL,
  count integer NOT NULL CHECK (count >= 0),
  created_at timestamptz NOT NULL
);
ALTER TABLE deliveries ADD COLUMN replay_id text REFERENCES webhook_replays (id) ON DELETE CASCADE;
ALTER TABLE deliveries DROP CONSTRAINT deliveries_event_id_endpoint_id_key;
CREATE UNIQUE INDEX deliveries_event_endpoint ON deliveries (event_id, endpoint_id)
  WHERE replay_id IS NULL;
CREATE INDEX deliveries_replay ON deliveries (replay_id) WHERE replay_id IS NOT NULL;
CREATE INDEX deliveries_replayed_event ON deliveries (event_id, endpoint_id, created_at, id)
  WHERE replay_id IS NOT NULL;
`;
