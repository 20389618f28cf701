import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A span as OTLP/HTTP JSON carries it (the fields the tests read). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
  /** `service.name` of the resource the span came with. */
  serviceName: string | undefined;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, 'attributes' | 'serviceName'> & {
        attributes?: OtlpAttribute[];
      })[];
    }[];
  }[];
}

function attributesOf(list: OtlpAttribute[] | undefined): ReceivedSpan['attributes'] {
  const attributes: ReceivedSpan['attributes'] = {};
  for (const { key, value } of list ?? []) {
    attributes[key] =
      value.stringValue ??
      (value.intValue === undefined ? undefined : Number(value.intValue)) ??
      value.boolValue ??
      value.doubleValue;
  }
  return attributes;
}

/**
 * A local OTLP/HTTP JSON receiver (an OpenTelemetry collector's `/v1/traces`, as far as the tests
 * need one): it keeps every body posted there, raw and as spans.
 */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string;
  /** Every body received, as text. */
  readonly bodies: string[];
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    spans() {
      const spans: ReceivedSpan[] = [];
      for (const body of bodies) {
        for (const resourceSpans of (JSON.parse(body) as OtlpTraces).resourceSpans ?? []) {
          const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'];
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                ...span,
                attributes: attributesOf(span.attributes),
                serviceName: typeof serviceName === 'string' ? serviceName : undefined,
              });
            }
          }
        }
      }
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
