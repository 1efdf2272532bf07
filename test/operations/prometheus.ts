import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample of a scrape: its labels and value (counters, gauges) or buckets (histograms). */
export interface Sample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}

export interface Family {
  name: string;
  type: string;
  help: string;
  metrics: Sample[];
}

/** Scrapes a Prometheus endpoint and parses it with a text-format parser (not string matching). */
export async function scrape(url: string): Promise<Map<string, Family>> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`scrape ${url}: ${res.status}`);
  const families = parsePrometheusTextFormat(await res.text()) as Family[];
  return new Map(families.map((family) => [family.name, family]));
}

/** The sum of a counter's samples whose labels include `match`. */
export function total(families: Map<string, Family>, name: string, match: Record<string, string> = {}): number {
  const family = families.get(name);
  if (!family) return 0;
  return family.metrics
    .filter((sample) => Object.entries(match).every(([key, value]) => sample.labels?.[key] === value))
    .reduce((sum, sample) => sum + Number(sample.value ?? sample.count ?? 0), 0);
}
