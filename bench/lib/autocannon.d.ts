/** The part of autocannon's API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
  }
  interface Result {
    /** `total`: the requests answered in the measured run. */
    requests: Histogram & { total: number };
    latency: Histogram;
    non2xx: number;
    statusCodeStats?: Record<string, { count: number }>;
    errors: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: Record<string, unknown>[];
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
