import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../common/errors/domain-error.js';
import { domainName } from './domain-name.js';

describe('domain names', () => {
  it('lower-cases, and stores an internationalised name in its ASCII form (RFC 5890 A-labels)', () => {
    assert.equal(domainName('Contoso.EXAMPLE', 'domain'), 'contoso.example');
    assert.equal(domainName('bücher.example', 'domain'), 'xn--bcher-kva.example');
    assert.equal(domainName('xn--bcher-kva.example', 'domain'), 'xn--bcher-kva.example');
    assert.equal(domainName(`${'a'.repeat(63)}.example`, 'domain'), `${'a'.repeat(63)}.example`);
  });

  it('refuses what is no host name, with a 400 naming the field', () => {
    const refused = [
      'example.com.',
      'localhost',
      'not a domain',
      '-a.example',
      'a-.example',
      `${'a'.repeat(64)}.example`,
      `${'a.'.repeat(126)}example`,
      '1.2.3.4',
      '0x7f.1',
      '[::1]',
      'a..example',
      'exa_mple.com',
      'a.example/path',
      'user@a.example',
      'a.example／path',
      'ａ.example',
      '',
    ];
    for (const value of refused) {
      assert.throws(
        () => domainName(value, 'domains'),
        (error: unknown) => error instanceof DomainError && error.details[0]?.field === 'domains',
        JSON.stringify(value),
      );
    }
  });
});
