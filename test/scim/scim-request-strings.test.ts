import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countRows, unique, useService } from '../support/fixtures.js';
import { PATCH_OP, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const SEARCH = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';
/** Every member name of Object.prototype: as attribute names they must be unknown attributes, never members. */
const MEMBERS = Object.getOwnPropertyNames(Object.prototype);
const q = encodeURIComponent;

/**
 * Request strings that name attributes or numbers (filter, sortBy, attributes, PATCH paths and value
 * keys, body keys, startIndex/count) are looked up in the service's tables; whatever they say, the
 * answer is a SCIM error or a well-formed result, never a 500, and nothing changes.
 */
describe('SCIM request strings: JavaScript member names, numbers, unquoted values, NUL', () => {
  const svc = useService();
  let t: ScimTenant;
  let user: any;
  before(async () => {
    t = await scimTenant(svc);
    user = await createUser(t, userBody(unique('strings'), { title: 'Engineer' }));
  });

  for (const name of MEMBERS) {
    it(`"${name}" in filters is 400 invalidFilter`, async () => {
      for (const filter of [
        `${name} eq "x"`,
        `${name} pr`,
        `emails.${name} eq "x"`,
        `${name}[value eq "x"]`,
        `emails[${name} eq "x"]`,
        `name.${name} co "x"`,
      ]) {
        assertScimError(await t.scim('GET', `/Users?filter=${q(filter)}`), 400, 'invalidFilter');
        assertScimError(await t.scim('POST', '/Users/.search', { body: { schemas: [SEARCH], filter } }), 400, 'invalidFilter');
      }
    });

    it(`"${name}" as sortBy is 400 invalidValue; in attributes/excludedAttributes it selects nothing`, async () => {
      assertScimError(await t.scim('GET', `/Users?sortBy=${q(name)}`), 400, 'invalidValue');
      assertScimError(await t.scim('GET', `/Users?sortBy=${q(`name.${name}`)}`), 400, 'invalidValue');
      assertScimError(await t.scim('POST', '/Users/.search', { body: { schemas: [SEARCH], sortBy: name } }), 400, 'invalidValue');
      const only = await t.scim('GET', `/Users/${user.id}?attributes=${q(`${name},name.${name}`)}`);
      assert.equal(only.status, 200, only.text);
      assert.deepEqual(Object.keys(only.body).sort(), ['id', 'schemas']);
      const all = await t.scim('GET', `/Users/${user.id}`);
      const excluded = await t.scim('GET', `/Users/${user.id}?excludedAttributes=${q(name)}`);
      assert.deepEqual(excluded.body, all.body);
      const listed = await t.scim('POST', '/Users/.search', { body: { schemas: [SEARCH], attributes: [name], excludedAttributes: [`emails.${name}`] } });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(Object.keys(listed.body.Resources[0]).sort(), ['id', 'schemas']);
    });

    it(`"${name}" as a PATCH path, value key or body key is refused and changes nothing`, async () => {
      const before = (await t.scim('GET', `/Users/${user.id}`)).body;
      const events = await countRows(svc, 'events');
      const patch = (op: Record<string, unknown>) => t.scim('PATCH', `/Users/${user.id}`, { body: { schemas: [PATCH_OP], Operations: [op] } });
      for (const op of [
        { op: 'replace', path: name, value: 'x' },
        { op: 'add', path: name, value: { value: 'x' } },
        { op: 'replace', path: `name.${name}`, value: 'x' },
        { op: 'replace', path: `emails[${name} eq "x"].value`, value: 'x' },
        { op: 'replace', value: { [name]: 'x' } },
        { op: 'replace', path: 'name', value: { [name]: { givenName: 'Mallory' } } },
        { op: 'add', path: 'emails', value: [{ value: 'm@example.com', [name]: { primary: true } }] },
      ]) {
        const res = await patch(op);
        assert.equal(res.status, 400, `${JSON.stringify(op)}: ${res.text}`);
      }
      // Removing an attribute the resource does not have changes nothing (RFC 7644 §3.5.2.2); a path that
      // is not an attribute name is invalidPath.
      const removed = await patch({ op: 'remove', path: name });
      assert.ok(removed.status === 204 || (removed.status === 400 && removed.body.scimType === 'invalidPath'), removed.text);
      const created = await t.scim('POST', '/Users', { body: { ...userBody(unique('member')), [name]: 'x' } });
      assertScimError(created, 400, 'invalidSyntax');
      const nested = await t.scim('POST', '/Users', { body: { ...userBody(unique('member')), name: { givenName: 'a', [name]: { familyName: 'b' } } } });
      assertScimError(nested, 400, 'invalidSyntax');
      assert.deepEqual((await t.scim('GET', `/Users/${user.id}`)).body, before);
      assert.equal(await countRows(svc, 'events'), events);
    });
  }

  /** [value sent, as JSON number in .search too?, expected startIndex echoed, or the error] */
  const NUMBERS: [string, number | undefined, number | 'invalidValue'][] = [
    ['1e30', 1e30, 'invalidValue'],
    // biome-ignore lint/correctness/noPrecisionLoss: 2^53 + 1 is the point: the number the client sends is not the one it meant
    ['9007199254740993', 9007199254740993, Number.MAX_SAFE_INTEGER],
    ['99999999999999999999999999999', undefined, Number.MAX_SAFE_INTEGER],
    ['-1', -1, 1],
    ['-99999999999999999999', undefined, 1],
    ['0', 0, 1],
    ['1.5', 1.5, 'invalidValue'],
    ['abc', undefined, 'invalidValue'],
    ['0x10', undefined, 'invalidValue'],
  ];
  for (const [text, json, expected] of NUMBERS) {
    it(`startIndex and count ${text}`, async () => {
      const start = await t.scim('GET', `/Users?startIndex=${q(text)}`);
      const count = await t.scim('GET', `/Users?count=${q(text)}`);
      if (expected === 'invalidValue') {
        assertScimError(start, 400, 'invalidValue');
        assertScimError(count, 400, 'invalidValue');
      } else {
        assert.equal(start.status, 200, start.text);
        assert.equal(start.body.startIndex, expected);
        assert.equal(start.body.totalResults, 1);
        assert.equal(start.body.Resources.length, expected === 1 ? 1 : 0);
        assert.equal(count.status, 200, count.text);
        // RFC 7644 §3.4.2.4: a negative count is 0; above the maximum, the maximum.
        assert.equal(count.body.Resources.length, text.startsWith('-') || text === '0' ? 0 : 1);
        assert.equal(count.body.totalResults, 1);
      }
      if (json === undefined) return;
      // A JSON number: 1e30 is an integer there (only its query spelling "1e30" is not).
      const body = await t.scim('POST', '/Users/.search', { body: { schemas: [SEARCH], startIndex: json, count: json } });
      if (!Number.isInteger(json)) return assertScimError(body, 400, 'invalidValue');
      assert.equal(body.status, 200, body.text);
      assert.equal(body.body.startIndex, json > 1 ? Number.MAX_SAFE_INTEGER : 1);
      assert.equal(body.body.totalResults, 1);
    });
  }

  it('unquoted string values are 400 invalidFilter in filters and invalidPath in PATCH paths', async () => {
    for (const filter of ['userName eq bob', 'userName sw O', 'title eq Engineer', 'meta.created gt 2015-10-10T14:38:21Z', 'emails[type eq work]']) {
      assertScimError(await t.scim('GET', `/Users?filter=${q(filter)}`), 400, 'invalidFilter');
    }
    const res = await t.scim('PATCH', `/Users/${user.id}`, {
      body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq work].value', value: 'w@example.com' }] },
    });
    assertScimError(res, 400, 'invalidPath');
  });

  it('U+0000 in a filter value is 400 invalidFilter (it matched everything with co/ew on SQLite), and in a body 400 invalidValue', async () => {
    for (const op of ['eq', 'ne', 'co', 'sw', 'ew', 'gt']) {
      for (const attribute of ['userName', 'name.familyName', 'emails.value', 'externalId', 'id', 'title']) {
        assertScimError(await t.scim('GET', `/Users?filter=${q(`${attribute} ${op} "\\u0000"`)}`), 400, 'invalidFilter');
      }
    }
    assertScimError(await t.scim('POST', '/Users', { body: userBody(`nul\u0000${unique('x')}`) }), 400, 'invalidValue');
  });
});
