/** One figure of a run: a scenario against one server, as written to bench/results/<timestamp>.json. */
export interface Measurement {
  /** Scenario id, e.g. `oidc.client-credentials` (the targets refer to it). */
  scenario: string;
  /** Human-readable scenario name for the tables. */
  label: string;
  /** `portcullis` or `peer`. */
  kind: 'portcullis' | 'peer' | 'reference';
  /** e.g. `Portcullis WORKERS=1`, `raw oidc-provider`. */
  server: string;
  workers?: number;
  /**
   * For a peer: the WORKERS of the Portcullis figure measured just before it, which it is compared with
   * (the machine's speed drifts over a run; adjacent figures share its state).
   */
  nextTo?: number;
  /** Rows in the database the scenario reads (users or events), for the growth figures. */
  size?: number;
  unit:
    | 'req/s'
    | 'logins/s'
    | 'sign-ins/s'
    | 'responses/s'
    | 'users/s'
    | 'checks/s'
    | 'events/s'
    | 'batches/s'
    | 'page loads/s'
    | 'messages/s'
    | 'pushes/s'
    | 'records/s';
  rate: number;
  p50?: number;
  /** Mean latency (ms, not rounded to whole milliseconds as autocannon's percentiles are). */
  mean?: number;
  p99?: number;
  /** The 95th percentile (ms), where a target bounds it (a directory's bind sign-in against a local one). */
  p95?: number;
  /** The slowest single operation (ms), where a target bounds it (the OIDC purge's batches). */
  max?: number;
  /** Non-2xx answers plus socket errors and timeouts. */
  errors: number;
  /**
   * Answers counted in the measured run(s), failed ones included (for a chain: operations). With `errors`, it tells
   * a figure of the work from a figure of errors (bench/lib/targets.ts `isVoid`); absent in results before it.
   */
  requests?: number;
  /** Largest resident memory of any one process of the server during the scenario (MB). */
  peakMb?: number;
  /**
   * The server's CPU time per request (µs, user + system of all its processes: with WORKERS=2 the primary
   * and its workers summed); for logins per login.
   */
  cpuUs?: number;
  /** On MySQL/MariaDB: the database server's CPU time per request (µs) during the same measurement. */
  dbCpuUs?: number;
  /** True for scenarios bound by password hashing, which the p99 target excludes. */
  hashing?: boolean;
}

export interface RunResult {
  startedAt: string;
  finishedAt: string;
  quick: boolean;
  database: string;
  seconds: number;
  machine: { cpus: number; model: string; node: string; loadAverage: { start: number[]; end: number[] } };
  measurements: Measurement[];
}
