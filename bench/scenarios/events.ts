/** Event search scenarios (POST /admin/v1/events/_search, docs/product-rules.md, "API") over the seeded events, as IAM_OWNER. */
import { call } from '../lib/api.js';
import { aggregateId, EVENT_TYPES } from '../lib/seed.js';

export interface EventScenario {
  id: string;
  label: string;
  body(n: number, size: number): Record<string, unknown>;
}

export const EVENT_SCENARIOS: EventScenario[] = [
  { id: 'events.by-type', label: 'event search: page of 100 by type', body: (n) => ({ event_types: [EVENT_TYPES[n % EVENT_TYPES.length]], limit: 100 }) },
  { id: 'events.by-aggregate', label: 'event search: by aggregate id', body: (n, size) => ({ aggregate_id: aggregateId((n * 7919) % size), limit: 100 }) },
];

export function eventRequests(token: string, scenario: EventScenario, size: number): Record<string, unknown>[] {
  let n = 0;
  return [
    {
      method: 'POST',
      path: '/admin/v1/events/_search',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify(scenario.body(n++, size)) }),
    },
  ];
}

/** Fails the run when a search would answer 200 with nothing found. */
export async function checkEvents(url: string, token: string, size: number): Promise<void> {
  for (const scenario of EVENT_SCENARIOS) {
    const { events } = await call(url, token, 'POST', '/admin/v1/events/_search', scenario.body(1, size));
    if (events.length === 0) throw new Error(`${scenario.id}: no events found`);
  }
}
