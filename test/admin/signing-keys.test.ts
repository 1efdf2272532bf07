import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ROTATION_INTERVAL_MS } from '../../src/common/crypto/key-schedule/key-schedule.js';
import { SigningKeysService } from '../../src/oidc/keys/signing-keys.service.js';
import { useService } from '../support/fixtures.js';
import { INVALID_TOKENS, refused, setUpOrg, tokenOption } from './helpers.js';
import type { OrgSetup } from './helpers.js';

interface ListedKey {
  keyId: string;
  alg: string;
  status: string;
  createdAt: string;
}

/** docs/product-rules.md, "API": `GET /admin/v1/keys` lists the signing keys and their status, never key material. */
describe('admin API: listing the signing keys', () => {
  const svc = useService();
  let a: OrgSetup;
  const list = async (): Promise<ListedKey[]> => {
    const res = await svc.api('GET', '/admin/v1/keys', { token: svc.adminToken });
    assert.equal(res.status, 200, res.text);
    assert.doesNotMatch(res.text, /"(d|p|q|dp|dq|qi|n|e|x|y|k)"|PRIVATE|private/, 'no key material');
    assert.deepEqual(Object.keys(res.body).sort(), ['keys', 'total'], 'every list carries total');
    assert.equal(res.body.total, res.body.keys.length);
    for (const key of res.body.keys) assert.deepEqual(Object.keys(key).sort(), ['alg', 'createdAt', 'keyId', 'status']);
    return res.body.keys;
  };

  before(async () => {
    a = await setUpOrg(svc);
  });

  it('shows the active key, the next one once scheduled, and retired ones; the published JWKS agrees', async () => {
    const [first] = await list();
    assert.equal(first.status, 'active');
    assert.equal(first.alg, 'RS256');
    assert.ok(!Number.isNaN(Date.parse(first.createdAt)));

    const rotated = await svc.api('POST', '/admin/v1/keys/rotate', { token: svc.adminToken, body: {} });
    assert.equal(rotated.status, 200, rotated.text);
    // As the 90-day schedule will do: the signer's successor is published a day before it signs.
    const signer = (await list()).find((k) => k.status === 'active')!;
    await svc.app.get(SigningKeysService).ensureSchedule(new Date(Date.parse(signer.createdAt) + ROTATION_INTERVAL_MS));

    const keys = await list();
    const byId = Object.fromEntries(keys.map((k) => [k.keyId, k.status]));
    assert.equal(byId[rotated.body.activeKeyId], 'active');
    assert.equal(byId[first.keyId], 'retired');
    assert.equal(keys.filter((k) => k.status === 'next').length, 1);
    assert.equal(keys[0].status, 'active', 'the signer first');
    const published = (await (await fetch(new URL('/oauth/v2/keys', svc.url))).json()) as { keys: { kid: string }[] };
    for (const { kid } of published.keys) assert.ok(kid in byId, `published key ${kid} is listed`);
  });

  it('answers 401 without a valid token and 403 below IAM_OWNER', async () => {
    for (const token of INVALID_TOKENS) await refused(svc, 401, () => svc.api('GET', '/admin/v1/keys', tokenOption(token)));
    for (const caller of [a.owner, a.manager, a.member]) await refused(svc, 403, () => svc.api('GET', '/admin/v1/keys', { token: caller.token }));
  });
});
