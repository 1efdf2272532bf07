import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, webhookHeaders } from './standard-webhooks.js';

describe('webhook signature', () => {
  // The example of the Standard Webhooks specification (spec/standard-webhooks.md, "Signature scheme").
  it('matches the specification example', () => {
    const headers = webhookHeaders('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}');
    assert.equal(headers['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('is accepted by the standardwebhooks library', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ hello: 'world' });
    const headers = webhookHeaders(secret, 'evt-1', Math.floor(Date.now() / 1000), body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), { hello: 'world' });
  });
});
