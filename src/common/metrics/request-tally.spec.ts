import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { RequestTally } from './request-tally.js';

const COUNTER = { name: 'requests_total', help: 'Requests.' };
const HISTOGRAM = { name: 'request_seconds', help: 'Durations.', buckets: [0.001, 0.01, 0.1, 1] };
const REQUESTS: [surface: string, route: string, status: string, seconds: number][] = [
  ['oidc', '/oauth/v2/token', '200', 0.0004],
  ['oidc', '/oauth/v2/token', '200', 0.003],
  ['oidc', '/oauth/v2/token', '401', 0.02],
  ['admin', '/admin/v1/orgs', '200', 0.5],
  ['admin', '/admin/v1/orgs', '200', 7],
  ['oidc', '/oauth/v2/token', '200', 0.001],
];

/** Samples in a comparable order, without prom-client's empty exemplar members. */
function samples(metrics: { name: string; type: unknown; values: { metricName?: string; labels: object; value: number }[] }[]) {
  return metrics
    .map((m) => ({
      name: m.name,
      type: m.type,
      values: m.values
        .map((v) => ({ metricName: v.metricName ?? m.name, labels: JSON.stringify(Object.entries(v.labels).sort()), value: v.value }))
        .sort((a, b) => `${a.metricName}${a.labels}`.localeCompare(`${b.metricName}${b.labels}`)),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The same requests counted by the tally and by prom-client's own Counter and Histogram, each in its own registry. */
async function bothWays() {
  const ours = new Registry();
  const tally = new RequestTally(COUNTER, HISTOGRAM, ours);
  const theirs = new Registry();
  const labelNames = ['surface', 'route', 'status'];
  const counter = new Counter({ ...COUNTER, labelNames, registers: [theirs] });
  const histogram = new Histogram({ ...HISTOGRAM, labelNames, registers: [theirs] });
  for (const [surface, route, status, seconds] of REQUESTS) {
    tally.observe(`${surface}\0${route}\0${status}`, () => ({ surface, route, status }), seconds);
    counter.inc({ surface, route, status });
    histogram.observe({ surface, route, status }, seconds);
  }
  return { ours, theirs };
}

describe('RequestTally', () => {
  it("gives the registry the same counter and histogram samples as prom-client's own metrics", async () => {
    const { ours, theirs } = await bothWays();
    assert.deepEqual(samples(await ours.getMetricsAsJSON()), samples(await theirs.getMetricsAsJSON()));
    const lines = (text: string) => text.split('\n').filter((l) => l && !l.startsWith('#')).length;
    assert.equal(lines(await ours.metrics()), lines(await theirs.metrics()));
    assert.match(await ours.metrics(), /^request_seconds_bucket\{le="0\.01",surface="oidc",route="\/oauth\/v2\/token",status="200"\} 3$/m);
    assert.match(await ours.metrics(), /^requests_total\{surface="admin",route="\/admin\/v1\/orgs",status="200"\} 2$/m);
  });

  it("is summed across cluster workers as prom-client's own metrics are", async () => {
    const { ours, theirs } = await bothWays();
    const twice = async (registry: Registry) =>
      AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), await registry.getMetricsAsJSON()]).getMetricsAsJSON();
    const summed = samples(await twice(ours));
    assert.deepEqual(summed, samples(await twice(theirs)));
    assert.ok(
      summed.some((m) => m.values.some((v) => v.metricName === 'requests_total' && v.value === 6)),
      'two workers × three token 200s',
    );
  });

  it('counts nothing after a reset', async () => {
    const { ours } = await bothWays();
    ours.resetMetrics();
    assert.deepEqual(
      samples(await ours.getMetricsAsJSON()).flatMap((m) => m.values),
      [],
    );
  });
});
