import type { ResourceLimits } from 'node:worker_threads';

/**
 * The heap limits of the service's own worker threads (WAL checkpoints, bounded SQLite reads, webhook delivery).
 * Each allocates little per task and keeps little, yet V8 grows a busy thread's young generation to 32 MB, as
 * on the main thread: up to 30 MB of resident memory per thread for nothing (BENCHMARKS.md, "Performance goals, memory").
 * 6 MB is two 2 MB semi-spaces and the space for large new objects; a larger object is allocated in the old
 * generation, so no read or delivery fails for it. The old generation keeps V8's default limit.
 */
export const THREAD_LIMITS: ResourceLimits = { maxYoungGenerationSizeMb: 6 };
