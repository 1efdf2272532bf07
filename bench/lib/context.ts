import type { Measurement } from './measurement.js';
import type { Store } from './processes.js';

export interface Options {
  quick: boolean;
  /** Seconds per scenario and server. */
  seconds: number;
  /** Seconds for the smaller growth points. */
  growthSeconds: number;
  /** Unmeasured seconds before each measurement (0: none). */
  warmup: number;
  /** Row counts (users, events) of the growth points, ascending; SCIM runs everything at `peerSize`. */
  sizes: number[];
  peerSize: number;
  /** Users per import request, ascending. */
  importSizes: number[];
  /** MySQL/MariaDB server URL; SQLite when absent. */
  mysql?: string;
  /** Scenario groups to run (all by default). */
  groups: string[];
}

export interface Context {
  options: Options;
  /** A fresh, empty database (and DATA_DIR) for a group of scenarios; `drop` removes both. */
  newStore(): Promise<Store & { drop(): Promise<void> }>;
  record(m: Measurement): void;
}
