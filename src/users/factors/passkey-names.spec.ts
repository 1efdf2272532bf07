import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fallbackPasskeyName, passkeyName } from './passkey-names.js';

describe('passkeyName', () => {
  const day = new Date('2026-11-25T10:00:00Z');

  it("names a passkey after its provider's AAGUID, in any letter case", () => {
    assert.equal(passkeyName('ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4', day), 'Google Password Manager');
    assert.equal(passkeyName('FBFC3007-154E-4ECC-8C0B-6E020557D7BD', day), 'iCloud Keychain');
  });

  it('falls back to "Passkey" and the day it was added for an unknown or all-zero AAGUID', () => {
    assert.equal(passkeyName('00000000-0000-0000-0000-000000000000', day), 'Passkey (added 2026-11-25)');
    assert.equal(passkeyName(undefined, day), 'Passkey (added 2026-11-25)');
    assert.equal(fallbackPasskeyName(day), 'Passkey (added 2026-11-25)');
  });
});
