import { APIPromise } from '../api-promise.js';
import type { HttpClient } from '../internal/http-client.js';
import type { RequestOptions } from '../request-options.js';
import { type Replay, replaySchema } from '../schemas/webhook-replay.js';
import { pathId } from './crud-resource.js';

/**
 * `client.replays`: the progress of replays started with `client.webhookEndpoints.replay()`.
 * Needs a token with `webhooks.manage` (ADMIN).
 *
 * @example
 * ```ts
 * const { id } = await client.webhookEndpoints.replay(endpointId, { since });
 * const { state, sent, count } = await client.replays.get(id);
 * ```
 */
export class Replays {
  readonly #http: HttpClient;

  /** @internal */
  constructor(http: HttpClient) {
    this.#http = http;
  }

  /**
   * A replay's progress (`GET /api/replays/{id}`): `running` while any of its deliveries is
   * pending, then `done`; `sent` counts those that ended (delivered or dead).
   *
   * @throws {@link NotFoundError} when no replay has this id.
   * @example
   * ```ts
   * const replay = await client.replays.get('rpl_01J…');
   * console.log(`${replay.sent} of ${replay.count}`, replay.state);
   * ```
   */
  get(replayId: string, options?: RequestOptions): APIPromise<Replay> {
    return new APIPromise(
      this.#http.request({
        method: 'GET',
        path: `/api/replays/${pathId(replayId)}`,
        schema: replaySchema,
        options,
      }),
    );
  }
}
