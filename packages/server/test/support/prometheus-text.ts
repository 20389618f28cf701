// A strict reader of the Prometheus text exposition format (0.0.4), for tests that scrape
// GET /metrics: every line must be a HELP, a TYPE or a sample of a family declared before it,
// with valid names, quoted and escaped label values, and a number; anything else throws.

/** One sample line: `name{label="value"} value`. */
export interface PrometheusSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family: its `# TYPE`, its `# HELP` and its samples. */
export interface PrometheusFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string | undefined;
  samples: PrometheusSample[];
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const types = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function unescapeText(text: string, quoted: boolean): string {
  return text.replace(/\\(.)/g, (whole, next: string) => {
    if (next === '\\') return '\\';
    if (next === 'n') return '\n';
    if (next === '"' && quoted) return '"';
    throw new SyntaxError(`Bad escape ${whole}`);
  });
}

// As Prometheus reads them (Go's ParseFloat): NaN and Inf in any case (prom-client writes `Nan`).
function parseValue(text: string): number {
  if (/^nan$/i.test(text)) return Number.NaN;
  if (/^\+?inf$/i.test(text)) return Number.POSITIVE_INFINITY;
  if (/^-inf$/i.test(text)) return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(text)) {
    throw new SyntaxError(`Not a sample value: ${JSON.stringify(text)}`);
  }
  return Number(text);
}

// The family a sample name belongs to: itself, or a histogram's or summary's series.
function familyOf(name: string, families: Map<string, PrometheusFamily>): PrometheusFamily {
  const exact = families.get(name);
  if (exact) return exact;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!name.endsWith(suffix)) continue;
    const family = families.get(name.slice(0, -suffix.length));
    if (
      family &&
      (family.type === 'histogram' || (family.type === 'summary' && suffix !== '_bucket'))
    ) {
      return family;
    }
  }
  throw new SyntaxError(`Sample ${name} belongs to no declared family`);
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const pattern = /\s*([^=\s]+)\s*=\s*"((?:[^"\\]|\\.)*)"\s*(,|$)/y;
  let at = 0;
  while (at < text.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) throw new SyntaxError(`Bad labels: ${JSON.stringify(text)}`);
    const [, name = '', value = '', comma] = match;
    if (!labelName.test(name)) throw new SyntaxError(`Bad label name ${name}`);
    if (Object.hasOwn(labels, name)) throw new SyntaxError(`Label ${name} twice`);
    labels[name] = unescapeText(value, true);
    at = pattern.lastIndex;
    if (comma === '' && at < text.length) throw new SyntaxError('Labels go on after the last');
  }
  return labels;
}

/** Reads a whole exposition; throws `SyntaxError` on the first line that is not valid. */
export function parsePrometheusText(text: string): Map<string, PrometheusFamily> {
  const families = new Map<string, PrometheusFamily>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new SyntaxError('The exposition must end with a newline');
  for (const line of lines.slice(0, -1)) {
    if (line === '') continue;
    const comment = /^# (HELP|TYPE) (\S+) ?(.*)$/s.exec(line);
    if (comment) {
      const [, kind, name = '', rest = ''] = comment;
      if (!metricName.test(name)) throw new SyntaxError(`Bad metric name ${name}`);
      const family = families.get(name) ?? { name, type: 'untyped', help: undefined, samples: [] };
      if (kind === 'HELP') {
        if (family.help !== undefined) throw new SyntaxError(`HELP of ${name} twice`);
        family.help = unescapeText(rest, false);
      } else {
        if (!types.has(rest)) throw new SyntaxError(`Bad type ${rest} of ${name}`);
        if (family.samples.length > 0) throw new SyntaxError(`TYPE of ${name} after its samples`);
        family.type = rest as PrometheusFamily['type'];
      }
      families.set(name, family);
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/s.exec(line);
    if (!sample) throw new SyntaxError(`Not a sample line: ${JSON.stringify(line)}`);
    const [, name = '', labelText = '', value = ''] = sample;
    familyOf(name, families).samples.push({
      name,
      labels: parseLabels(labelText),
      value: parseValue(value),
    });
  }
  return families;
}

/** The value of the one sample of `name` whose labels are exactly `labels`, or a throw. */
export function sampleValue(
  families: Map<string, PrometheusFamily>,
  name: string,
  labels: Record<string, string> = {},
): number {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  const found = [...families.values()]
    .flatMap((family) => family.samples)
    .filter(
      (sample) =>
        sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted,
    );
  if (found.length !== 1) {
    throw new Error(`${found.length} samples of ${name} ${wanted}`);
  }
  return (found[0] as PrometheusSample).value;
}
