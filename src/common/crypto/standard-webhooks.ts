import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** A new signing secret as Standard Webhooks writes it: `whsec_` and the base64 of 32 random bytes (the spec asks 24 to 64). */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** The Standard Webhooks headers of one attempt (https://www.standardwebhooks.com, "Signature scheme"). */
export function webhookHeaders(secret: string, messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': `v1,${sign(secret, messageId, timestampSeconds, body)}`,
  };
}

/**
 * "The content to sign is composed by concatenating the id, timestamp and payload, separated by the full-stop
 * character (.)"; the HMAC-SHA256 key is the base64-decoded part of the secret after `whsec_`.
 */
function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
}
