// In-process counters and histograms, rendered in the Prometheus text format at /metrics.

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = Record<string, string>;

export type Metrics = {
  inc(name: string, labels?: Labels, by?: number): void;
  observe(name: string, seconds: number, labels?: Labels): void;
  gauge(name: string, read: () => number | Promise<number>): void;
  render(): Promise<string>;
};

const HELP: Record<string, string> = {
  partnerd_http_requests_total: 'HTTP requests answered, by method, route and status.',
  partnerd_http_request_duration_seconds: 'HTTP request duration.',
  partnerd_report_reads_on_replica: 'Whether dashboard, report and export reads go to DATABASE_REPLICA_URL now (1) or to the primary (0).',
  partnerd_replica_lag_seconds: "The replica's replay lag at its last check, in seconds (NaN while it is down).",
};

export function createMetrics(): Metrics {
  const counters = new Map<string, Map<string, number>>();
  const histograms = new Map<string, Map<string, { buckets: number[]; sum: number; count: number }>>();
  const gauges = new Map<string, () => number | Promise<number>>();
  const build = (labels: Labels) =>
    Object.entries(labels)
      .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
      .join(',');
  // hot paths pass the same (never mutated) labels object every time: its key is built once
  const keys = new WeakMap<Labels, string>();
  const key = (labels?: Labels) => {
    if (!labels) return '';
    let k = keys.get(labels);
    if (k === undefined) keys.set(labels, (k = build(labels)));
    return k;
  };
  return {
    inc(name, labels, by = 1) {
      const series = counters.get(name) ?? new Map();
      counters.set(name, series);
      const k = key(labels);
      series.set(k, (series.get(k) ?? 0) + by);
    },
    observe(name, seconds, labels) {
      const series = histograms.get(name) ?? new Map();
      histograms.set(name, series);
      const k = key(labels);
      const h = series.get(k) ?? { buckets: BUCKETS.map(() => 0), sum: 0, count: 0 };
      series.set(k, h);
      BUCKETS.forEach((b, i) => {
        if (seconds <= b) h.buckets[i]!++;
      });
      h.sum += seconds;
      h.count++;
    },
    gauge(name, read) {
      gauges.set(name, read);
    },
    async render() {
      const out: string[] = [];
      const help = (name: string, type: string) => {
        if (HELP[name]) out.push(`# HELP ${name} ${HELP[name]}`);
        out.push(`# TYPE ${name} ${type}`);
      };
      const braces = (k: string) => (k ? `{${k}}` : '');
      for (const [name, series] of counters) {
        help(name, 'counter');
        for (const [k, v] of series) out.push(`${name}${braces(k)} ${v}`);
      }
      for (const [name, series] of histograms) {
        help(name, 'histogram');
        for (const [k, h] of series) {
          const sep = k ? ',' : '';
          BUCKETS.forEach((b, i) => out.push(`${name}_bucket{${k}${sep}le="${b}"} ${h.buckets[i]}`));
          out.push(`${name}_bucket{${k}${sep}le="+Inf"} ${h.count}`);
          out.push(`${name}_sum${braces(k)} ${h.sum}`);
          out.push(`${name}_count${braces(k)} ${h.count}`);
        }
      }
      for (const [name, read] of gauges) {
        help(name, 'gauge');
        out.push(`${name} ${await read()}`);
      }
      return out.join('\n') + '\n';
    },
  };
}
