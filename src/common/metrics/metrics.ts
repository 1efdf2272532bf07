import { Counter, Gauge, collectDefaultMetrics, register } from 'prom-client';
import { RequestTally } from './request-tally.js';

/**
 * The service's Prometheus metrics (docs/operations.md lists them). They live in prom-client's default
 * registry, one per process; with WORKERS > 1 the primary aggregates the workers' registries.
 * Label values are always from a small fixed set — route templates, grant types, results — never an
 * id, a name or a token, so the number of series stays bounded whatever the traffic.
 */
/** `portcullis_http_requests_total` and `portcullis_http_request_duration_seconds`, by surface, route template and status code. */
export const httpRequests = new RequestTally(
  { name: 'portcullis_http_requests_total', help: 'HTTP requests answered, by surface, route template and status code.' },
  {
    name: 'portcullis_http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by surface, route template and status code.',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  },
);

export const tokensIssued = new Counter({
  name: 'portcullis_tokens_issued_total',
  help: 'Successful token responses, by grant type (implicit: access tokens issued by the authorization endpoint).',
  labelNames: ['grant_type'] as const,
});

export const logins = new Counter({
  name: 'portcullis_logins_total',
  help: 'Password checks of the login UI, by result.',
  labelNames: ['result'] as const,
});

export const idpLogins = new Counter({
  name: 'portcullis_idp_logins_total',
  help: 'Sign-ins through an upstream identity provider, by its protocol and the result.',
  labelNames: ['idp_type', 'result'] as const,
});

export const scimRequests = new Counter({
  name: 'portcullis_scim_requests_total',
  help: 'SCIM requests answered, by resource, method and status code.',
  labelNames: ['resource', 'method', 'status'] as const,
});

export const eventsWritten = new Counter({
  name: 'portcullis_events_written_total',
  help: 'Events appended to the event log (in transactions that may still roll back).',
});

export const mailMessages = new Counter({
  name: 'portcullis_mail_messages_total',
  help: 'Mail messages, by result: queued, sent, deferred (an attempt failed; retried later), failed (given up on).',
  labelNames: ['result'] as const,
});

export const transactionRetries = new Counter({
  name: 'portcullis_db_retries_total',
  help: 'Units of work run again after MySQL/MariaDB rolled them back, by reason: deadlock (1213: an InnoDB deadlock or a Galera certification conflict), lock_wait_timeout (1205); outcome: retried, or given_up after the last attempt.',
  labelNames: ['reason', 'outcome'] as const,
});

export const webhookDeliveries = new Counter({
  name: 'portcullis_webhook_deliveries_total',
  help: 'Webhook delivery attempts, by result.',
  labelNames: ['result'] as const,
});

export const provisioningRequests = new Counter({
  name: 'portcullis_provisioning_requests_total',
  help: 'Requests to outbound SCIM targets, by result: ok, not_found, conflict, invalid (400/422), auth (401/403), rate_limited (429), retry (5xx, redirect, no answer, bad JSON).',
  labelNames: ['result'] as const,
});

export const provisioningLag = new Gauge({
  name: 'portcullis_provisioning_lag_events',
  help: "Events of a target's organization past the target's cursor, as its pusher last saw them, by target id.",
  labelNames: ['target'] as const,
});

export const auditStreamRecords = new Counter({
  name: 'portcullis_audit_stream_records_total',
  help: 'Audit records sent to streams, by result: delivered (the receiver took the batch), retry (the batch is sent again later).',
  labelNames: ['result'] as const,
});

export const auditStreamLag = new Gauge({
  name: 'portcullis_audit_stream_lag_events',
  help: "Events of the log past an audit stream's cursor, as its worker last saw them, by stream id.",
  labelNames: ['stream'] as const,
});

let defaultsCollected = false;

/** Process and Node.js metrics (CPU, memory, event-loop lag, GC), once per process. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics();
}

export { register as metricsRegistry };
