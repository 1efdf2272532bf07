import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseXml } from '../../common/xml/saml-xml.js';
import { logoutRequestUse } from './logout-request-use.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const MINUTE = 60 * 1000;

function request(attributes: Record<string, string>): Element {
  const list = Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${value}"`)
    .join('');
  return parseXml(`<samlp:LogoutRequest xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" Version="2.0"${list}/>`).documentElement;
}
const at = (ms: number) => new Date(NOW + ms).toISOString();

describe('the window of an upstream LogoutRequest', () => {
  it('takes one issued up to ten minutes ago, with three minutes of skew either way, and keeps its ID while it could be taken', () => {
    for (const issued of [0, -12 * MINUTE, 2 * MINUTE]) {
      assert.deepEqual(logoutRequestUse(request({ ID: '_a', IssueInstant: at(issued) }), NOW), { id: '_a', keepUntil: NOW + issued + 13 * MINUTE });
    }
    assert.equal(logoutRequestUse(request({ ID: '_a', IssueInstant: at(0), NotOnOrAfter: at(-2 * MINUTE) }), NOW).id, '_a');
  });

  it('refuses one too old, from the future, past its NotOnOrAfter, or without ID or IssueInstant', () => {
    const refused: [Record<string, string>, RegExp][] = [
      [{ ID: '_a', IssueInstant: at(-13 * MINUTE) }, /too old/],
      [{ ID: '_a', IssueInstant: at(3 * MINUTE + 1000) }, /future/],
      [{ ID: '_a', IssueInstant: at(0), NotOnOrAfter: at(-3 * MINUTE) }, /NotOnOrAfter/],
      [{ ID: '_a', IssueInstant: at(0), NotOnOrAfter: 'soon' }, /NotOnOrAfter/],
      [{ IssueInstant: at(0) }, /no ID/],
      [{ ID: '_a' }, /no IssueInstant/],
      [{ ID: '_a', IssueInstant: 'yesterday' }, /no IssueInstant/],
    ];
    for (const [attributes, reason] of refused) assert.throws(() => logoutRequestUse(request(attributes), NOW), reason, JSON.stringify(attributes));
  });
});
