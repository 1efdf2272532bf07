import cluster from 'node:cluster';

interface WorkerSupervisor {
  /** Why the cluster cannot serve its full share yet (a worker still starting or replaced), or undefined. */
  readiness(): string | undefined;
}

/**
 * Forks `count` workers sharing the port, replaces one that dies, and on SIGTERM/SIGINT/SIGHUP lets each
 * finish its requests. The primary hands connections only to workers that listen, so until all of
 * them do the cluster serves with less than its capacity: readiness says so (docs/operations.md), and
 * a load balancer or a test waits for the whole cluster rather than the first worker up.
 */
export function superviseWorkers(count: number, log: (level: 'info' | 'error', msg: string) => void): WorkerSupervisor {
  let stopping = false;
  const listening = new Set<number>();
  cluster.on('listening', (worker) => listening.add(worker.id));
  cluster.on('exit', (worker, code, signal) => {
    listening.delete(worker.id);
    if (stopping) {
      // A worker that exits before it disconnects stays in cluster.workers until its 'disconnect': when
      // the last one exits, the others may still be listed, dead. Counting the listed ones hung shutdown.
      if (Object.values(cluster.workers ?? {}).every((w) => !w || w.isDead())) process.exit(0);
      return;
    }
    log('error', `worker ${worker.process.pid} exited (${signal ?? code}); starting a new one`);
    setTimeout(() => cluster.fork(), 1000);
  });
  for (let i = 0; i < count; i++) cluster.fork();
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log('info', `${signal}: stopping workers`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);
  return {
    readiness: () => (listening.size < count ? `${listening.size} of ${count} workers are listening` : undefined),
  };
}
