import { AggregatorRegistry } from 'prom-client';
import { metricsRegistry } from '../metrics/metrics.js';

type MetricsText = { contentType: string; body: string };

/** This process's metrics. */
export function processMetrics(): () => Promise<MetricsText> {
  return async () => ({ contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() });
}

/**
 * In the cluster primary: every worker's metrics, summed per series (prom-client asks each worker over
 * the cluster IPC channel; a worker that is being replaced is simply absent from that scrape).
 */
export function clusterMetrics(): () => Promise<MetricsText> {
  const aggregator = new AggregatorRegistry();
  return async () => ({ contentType: aggregator.contentType, body: await aggregator.clusterMetrics() });
}

/** In a cluster worker: answers the primary's requests for this process's metrics (over IPC). */
export function answerPrimaryForMetrics(): void {
  // prom-client installs the worker's IPC listener when an AggregatorRegistry is created.
  new AggregatorRegistry();
}
