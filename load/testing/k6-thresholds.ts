// How k6 judges thresholds at the end of a run, for the k6 shim and for tests that put samples
// through a script's own thresholds: aggregates per metric and sub-metric (name{tag:value}), the
// threshold expressions k6 accepts for each metric type, and the summary's metrics as k6 v0.47 fills
// them in (type, contains, the values each type reports).

export type Tags = Record<string, string>;
export type MetricType = 'counter' | 'rate' | 'trend' | 'gauge';

export interface Sample {
  metric: string;
  value: number;
  tags: Tags;
}

export interface ThresholdResult {
  key: string;
  expression: string;
  ok: boolean;
  value: number | undefined;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** Every percentile a trend reports: k6's defaults and rate-limit.js's, and any the script names. */
const PERCENTILES = [90, 95, 99];

function aggregate(type: MetricType, values: number[], durationS: number, stats: readonly string[] = []): Record<string, number> {
  if (type === 'counter') {
    const count = values.reduce((a, b) => a + b, 0);
    return { count, rate: durationS > 0 ? count / durationS : 0 };
  }
  if (type === 'rate') {
    const passes = values.filter((v) => v !== 0).length;
    return { rate: values.length ? passes / values.length : 0, passes, fails: values.length - passes };
  }
  if (type === 'gauge') return { value: values.at(-1) ?? 0, min: Math.min(...values), max: Math.max(...values) };
  const sorted = [...values].sort((a, b) => a - b);
  const out: Record<string, number> = {
    avg: values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0,
    min: sorted[0] ?? 0,
    max: sorted.at(-1) ?? 0,
    med: percentile(sorted, 50),
    count: values.length,
  };
  for (const p of PERCENTILES) out[`p(${p})`] = percentile(sorted, p);
  for (const stat of stats) {
    const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(stat);
    if (p) out[stat] = percentile(sorted, Number(p[1]));
  }
  return out;
}

/** What a metric holds, as k6's summary names it. */
export interface MetricInfo {
  type: MetricType;
  time: boolean;
  /** Bytes (data_sent, data_received): k6 shows them in kB, MB. */
  data?: boolean;
}

function contains(info: MetricInfo): string {
  return info.data ? 'data' : info.time ? 'time' : 'default';
}

/** Parses "name{tag:value,tag2:value2}" as k6 does for thresholds on sub-metrics. */
export function parseMetricKey(key: string): { name: string; tags: Tags } {
  const m = /^([a-zA-Z_][a-zA-Z0-9_]*)(?:\{(.*)\})?$/.exec(key);
  if (!m) throw new Error(`k6 would refuse the threshold key ${key}`);
  const tags: Tags = {};
  if (m[2] !== undefined) {
    for (const part of m[2].split(',')) {
      const [k, ...rest] = part.split(':');
      if (!k || rest.length === 0) throw new Error(`k6 would refuse the sub-metric selector in ${key}`);
      tags[k.trim()] = rest.join(':').trim();
    }
  }
  return { name: m[1]!, tags };
}

const EXPRESSION = /^\s*(count|rate|avg|min|max|med|value|p\((\d+(?:\.\d+)?)\))\s*(<=|>=|===|==|!=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;
const STATS: Record<MetricType, RegExp> = {
  counter: /^(count|rate)$/,
  rate: /^rate$/,
  gauge: /^value$/,
  trend: /^(avg|min|max|med|p\(.+\))$/,
};

export type SummaryMetrics = Record<
  string,
  { type: MetricType; contains: string; values: Record<string, number>; thresholds?: Record<string, { ok: boolean }> }
>;

/** The samples of a metric, or of a sub-metric (tags given). */
function valuesOf(samples: readonly Sample[], name: string, tags: Tags): number[] {
  return samples.filter((s) => s.metric === name && Object.entries(tags).every(([k, v]) => s.tags[k] === v)).map((s) => s.value);
}

/**
 * One entry of the summary's metrics, a metric or a sub-metric (`name{tag:value}`), as k6 fills it in:
 * `stats` are the trend statistics the script asks for (summaryTrendStats).
 */
export function summaryMetric(
  key: string,
  samples: readonly Sample[],
  types: ReadonlyMap<string, MetricInfo>,
  durationS: number,
  stats: readonly string[] = [],
): SummaryMetrics[string] {
  const { name, tags } = parseMetricKey(key);
  const info = types.get(name);
  if (!info) throw new Error(`no metric ${name}`);
  return { type: info.type, contains: contains(info), values: aggregate(info.type, valuesOf(samples, name, tags), durationS, stats) };
}

/**
 * Judges thresholds over samples the way k6 does at the end of a run, and builds the summary's
 * metrics. Exported so that a test can put samples through the scripts' own thresholds.
 */
export function evaluateThresholds(
  definitions: Record<string, string[]>,
  samples: readonly Sample[],
  types: ReadonlyMap<string, MetricInfo>,
  durationS: number,
  stats: readonly string[] = [],
): { results: ThresholdResult[]; unsampled: string[]; metrics: SummaryMetrics } {
  const metrics: SummaryMetrics = {};
  for (const [name] of types) {
    if (valuesOf(samples, name, {}).length) metrics[name] = summaryMetric(name, samples, types, durationS, stats);
  }
  const results: ThresholdResult[] = [];
  const unsampled: string[] = [];
  for (const [key, expressions] of Object.entries(definitions)) {
    const { name, tags } = parseMetricKey(key);
    const info = types.get(name);
    if (!info) throw new Error(`threshold on ${key}: no metric ${name} (k6 refuses to start)`);
    const values = valuesOf(samples, name, tags);
    if (values.length === 0) unsampled.push(key);
    const wanted = [...stats, ...expressions.map((e) => EXPRESSION.exec(e)?.[1] ?? '')];
    const agg = aggregate(info.type, values, durationS, wanted);
    const entry = (metrics[key] ??= { type: info.type, contains: contains(info), values: agg, thresholds: {} });
    entry.thresholds ??= {};
    for (const expression of expressions) {
      const ok = thresholdHolds(key, expression, info.type, agg, values.length);
      results.push({ key, expression, ok, value: values.length ? agg[EXPRESSION.exec(expression)![1]!] : undefined });
      entry.thresholds[expression] = { ok };
    }
  }
  return { results, unsampled, metrics };
}

function thresholdHolds(key: string, expression: string, type: MetricType, agg: Record<string, number>, count: number): boolean {
  const m = EXPRESSION.exec(expression);
  if (!m || !STATS[type].test(m[1]!)) throw new Error(`threshold ${key}: ${expression} is not valid for a ${type}`);
  const value = agg[m[1]!];
  const limit = Number(m[4]);
  const op = m[3]!;
  // A metric without samples is not judged (k6's own behaviour here has varied between versions);
  // the scripts give every counter a zero sample so this never decides a verdict, and `unsampled`
  // lets the tests prove that.
  if (count === 0) return true;
  if (value === undefined) return false;
  return op === '<'
    ? value < limit
    : op === '<='
      ? value <= limit
      : op === '>'
        ? value > limit
        : op === '>='
          ? value >= limit
          : op === '!='
            ? value !== limit
            : value === limit;
}
