/** The environment variables {@link tracingRequested} reads, as `start` receives them. */
export type TracingEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * @internal The OpenTelemetry variables `start` reads, or leaves to the Node SDK and documents (the
 * README's "Traces" table): the one list that `--help` and that table are checked against. The
 * SDK reads more (`OTEL_BSP_*`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_RESOURCE_ATTRIBUTES`, …),
 * which both name as working as the SDK documents them.
 */
export const TRACING_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_TRACES_EXPORTER',
  'OTEL_SERVICE_NAME',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_PROPAGATORS',
  'OTEL_SDK_DISABLED',
] as const;

/** @internal `service.name` when `OTEL_SERVICE_NAME` is not set. */
export const DEFAULT_SERVICE_NAME = 'followup-server';

// OTEL_TRACES_EXPORTER is a comma-separated list; the SDK reads it trimmed, and `none` anywhere in
// it turns traces off whatever else it lists.
function exporterNames(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/**
 * @internal Whether the standard OpenTelemetry variables ask for traces, so that `start` loads the
 * Node SDK: `OTEL_TRACES_EXPORTER` names an exporter other than `none`, or
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set (without an
 * exporter named, the SDK exports OTLP). Never with `OTEL_SDK_DISABLED=true` or an exporter list
 * holding `none`. Without any of them nothing is loaded and every span is the API's no-op.
 */
export function tracingRequested(env: TracingEnvironment): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = exporterNames(env.OTEL_TRACES_EXPORTER);
  if (exporters.includes('none')) return false;
  if (exporters.length > 0) return true;
  return isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/** @internal The service name traces are exported under: `OTEL_SERVICE_NAME`, else `followup-server`. */
export function tracingServiceName(env: TracingEnvironment): string {
  const name = env.OTEL_SERVICE_NAME?.trim();
  return name ? name : DEFAULT_SERVICE_NAME;
}
