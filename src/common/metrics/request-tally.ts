import { register } from 'prom-client';
import type { Metric, Registry } from 'prom-client';

type Labels = Record<string, string>;

/** A sample as prom-client's metrics give it to the registry (`get()`'s `values`). */
interface Sample {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/** One label set's requests: how many, their total duration, and how many fell in each bucket (not cumulative). */
interface Series {
  labels: Labels;
  count: number;
  sum: number;
  buckets: number[];
}

interface Described {
  name: string;
  help: string;
}

/**
 * Answered requests counted per label set, exported as a counter and a duration histogram of prom-client's
 * own format. prom-client's `Counter#inc` and `Histogram#observe` check and hash their label object on every
 * call, twice per request (about 3 µs of a token request's 300, BENCHMARKS.md, "Where each goal stands"); here a request costs
 * one Map look-up by a string key the caller builds and a few additions, and the registry reads the totals
 * when it collects (a scrape, or the cluster primary's request to a worker, which sums them like any
 * prom-client metric: `aggregator: 'sum'`). Label values must come from a bounded set, as for any metric.
 */
export class RequestTally {
  private readonly series = new Map<string, Series>();

  constructor(
    counter: Described,
    private readonly histogram: Described & { buckets: readonly number[] },
    registry: Registry = register,
  ) {
    registry.registerMetric(this.metric(counter, 'counter', () => this.counterValues(counter.name)));
    registry.registerMetric(this.metric(histogram, 'histogram', () => this.histogramValues()));
  }

  /** Counts one request: `key` identifies `labels` (the same key always comes with the same labels). */
  observe(key: string, labels: () => Labels, seconds: number): void {
    let series = this.series.get(key);
    if (!series) this.series.set(key, (series = { labels: labels(), count: 0, sum: 0, buckets: this.histogram.buckets.map(() => 0) }));
    series.count++;
    series.sum += seconds;
    const { buckets } = this.histogram;
    for (let i = 0; i < buckets.length; i++) {
      if (seconds <= buckets[i]) {
        series.buckets[i]++;
        break;
      }
    }
  }

  private counterValues(name: string): Sample[] {
    return [...this.series.values()].map((s) => ({ metricName: name, labels: s.labels, value: s.count }));
  }

  /** As prom-client's Histogram: cumulative `_bucket`s by `le`, then `+Inf`, `_sum` and `_count`, per label set. */
  private histogramValues(): Sample[] {
    const { name, buckets } = this.histogram;
    return [...this.series.values()].flatMap((s) => {
      let below = 0;
      return [
        ...buckets.map((le, i) => ({ metricName: `${name}_bucket`, labels: { le, ...s.labels }, value: (below += s.buckets[i]) })),
        { metricName: `${name}_bucket`, labels: { le: '+Inf', ...s.labels }, value: s.count },
        { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
        { metricName: `${name}_count`, labels: s.labels, value: s.count },
      ];
    });
  }

  /**
   * What prom-client's registry reads of a metric: its description, `get()` (the registry's text and the
   * cluster's JSON both come from it) and `reset()`. Its typings name only its own classes, hence the cast.
   */
  private metric({ name, help }: Described, type: 'counter' | 'histogram', values: () => Sample[]): Metric {
    const described = { name, help, type, aggregator: 'sum' };
    const metric = { ...described, get: async () => ({ ...described, values: values() }), reset: () => this.series.clear() };
    return metric as unknown as Metric;
  }
}
