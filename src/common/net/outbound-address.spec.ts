import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { guardedLookup, isPublicAddress } from './outbound-address.js';

describe('outbound addresses', () => {
  it('refuses loopback, private, link-local, reserved and special-purpose addresses, also wrapped in IPv6 forms', () => {
    const refused = [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.10',
      '198.18.0.1',
      '240.0.0.1',
      '192.0.0.8',
      '::1',
      '::',
      'fd12::1',
      'fc00::1',
      'fe80::1',
      'ff02::1',
      'ff0e::1',
      '2001:db8::1',
      '100::1',
      // loopback through IPv4-compatible and IPv4-mapped forms an older filter missed
      '::127.0.0.1',
      '::7f00:1',
      '::ffff:0:7f00:1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '64:ff9b::7f00:1',
      '64:ff9b::a00:1',
      '64:ff9b:1::1',
      '64:ff9b:1::7f00:1',
      '2002:7f00:1::1',
      '2002:a00:1::',
      '2002:c0a8:101::1',
      '2001::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
      // not an IP literal, or a legacy form no resolver returns
      'not-an-ip',
      '127.1',
      '2130706433',
      '',
    ];
    const allowed = [
      '93.184.215.14',
      '8.8.8.8',
      '172.32.0.1',
      '1.1.1.1',
      '2606:4700::1111',
      '2a00:1450:4001:82a::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ];
    assert.deepEqual(refused.filter(isPublicAddress), [], 'refused');
    assert.deepEqual(
      allowed.filter((a) => !isPublicAddress(a)),
      [],
      'allowed',
    );
  });

  it('the lookup used to connect refuses a name that resolves to loopback', async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    assert.match(String(error), /non-public/);
  });
});
