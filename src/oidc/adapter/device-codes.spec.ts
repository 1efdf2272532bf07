import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SecretHasher } from '../../common/crypto/secret-hasher.js';
import { deviceCodeRowHandle, deviceCodeRowKey, userCodeHash } from './device-codes.js';

describe('device code rows (RFC 8628): keys, handles and user codes', () => {
  const hasher = new SecretHasher(Buffer.alloc(32, 7));

  it('a device code is keyed by its keyed hash, like every token', () => {
    assert.equal(deviceCodeRowKey('a-device-code', hasher), hasher.hash('a-device-code'));
  });

  it('a row handle addresses its row only on the user pages: presented anywhere else (the token endpoint) it finds nothing', () => {
    const handle = deviceCodeRowHandle('row-key');
    assert.equal(handle, 'row:row-key');
    // No request of oidc-provider is being handled here (Provider.ctx is undefined): no route, no row.
    assert.equal(deviceCodeRowKey(handle, hasher), undefined);
  });

  it('user codes are stored as a keyed hash of their own kind, never as the code', () => {
    const stored = userCodeHash('WDJBMJHT', hasher);
    assert.notEqual(stored, 'WDJBMJHT');
    assert.notEqual(stored, hasher.hash('WDJBMJHT'), 'not the hash a token of the same value would have');
    assert.equal(stored, userCodeHash('WDJBMJHT', hasher));
    assert.ok(stored.length <= 64, 'fits oidc_payloads.user_code');
  });
});
