/**
 * The two parts of `@opentelemetry/api` that the client's `tracing` option uses: the active
 * context, and the propagators registered for it. Pass the API module itself; its type fits
 * this one without the SDK importing `@opentelemetry/api` at all, so that the package stays an
 * optional peer that no runtime or bundler has to find.
 *
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api';
 * const client = new FollowUp({ token, baseUrl, tracing: api });
 * ```
 */
export interface TracingApi {
  /** `api.context`: the context active where a call is made. */
  readonly context: {
    /** The active context (`api.context.active()`). */
    active(): unknown;
  };
  /** `api.propagation`: writes a context into headers with the registered propagators. */
  readonly propagation: {
    /** Writes `context` into `carrier` (`api.propagation.inject(context, carrier)`). */
    inject(context: unknown, carrier: Record<string, string>): void;
  };
}
