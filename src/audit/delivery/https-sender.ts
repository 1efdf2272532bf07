import { webhookHeaders } from '../../common/crypto/standard-webhooks.js';
import { outboundFetch } from '../../common/net/outbound-fetch.js';
import type { AuditRecord } from '../record/audit-record.js';
import { SYSLOG_TIMEOUT_MS } from './syslog-sender.js';

export interface HttpsDestination {
  url: string;
  /** The stream's signing secret (`whsec_…`), decrypted. */
  secret: string;
  streamId: string;
  allowPrivateNetworks: boolean;
}

/**
 * Sends a batch of records as JSON lines in one `POST`, signed as webhooks are (Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`). The id names the stream and the batch's first sequence, so a batch sent
 * again carries the id it had. Any 2xx takes the batch; anything else, or no answer in 10 s, fails it. Addresses are
 * checked when the connection is made (src/common/net/outbound-fetch.ts); redirects are not followed.
 */
export async function sendHttpsBatch(to: HttpsDestination, records: AuditRecord[], signal: AbortSignal): Promise<void> {
  const body = records.map((record) => `${JSON.stringify(record)}\n`).join('');
  const messageId = `${to.streamId}.${records[0].sequence}`;
  const fetch = outboundFetch({ allowPrivateNetworks: to.allowPrivateNetworks, timeoutMs: SYSLOG_TIMEOUT_MS, maxBodyBytes: 64 * 1024 });
  const answer = await fetch(to.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-ndjson',
      'user-agent': 'Portcullis-Audit-Streams',
      ...webhookHeaders(to.secret, messageId, Math.floor(Date.now() / 1000), body),
    },
    body,
    signal,
    discardSuccessBody: true,
  });
  if (answer.status < 200 || answer.status >= 300) throw new Error(`the receiver answered HTTP ${answer.status}`);
}
