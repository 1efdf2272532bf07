import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { GROUP_STRING_BOUNDS, USER_STRING_BOUNDS } from '../../src/scim/schema/scim-bounds.js';
import { ENTERPRISE_ATTRIBUTES, USER_ATTRIBUTES } from '../../src/scim/schema/user.schema.js';
import type { ApiResponse } from '../support/http.js';
import { countRows, unique, useService } from '../support/fixtures.js';
import { ENTERPRISE, PATCH_OP, USER_SCHEMA, assertScimError, createUser, scimTenant } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const MULTI_VALUED = new Set([...USER_ATTRIBUTES, ...ENTERPRISE_ATTRIBUTES].filter((a) => a.multiValued).map((a) => a.name));
/** RFC 7643 §7 `returned: "request"` (userType): a GET shows them when asked for. */
const ON_REQUEST = USER_ATTRIBUTES.filter((a) => a.returned === 'request')
  .map((a) => a.name)
  .join(',');
/** What an entry of a multi-valued attribute needs besides the attribute under test (a contact needs its value). */
const ENTRY_BASE: Record<string, Record<string, string>> = { emails: { value: 'entry@example.com' }, phoneNumbers: { value: '+41 79 123 45 67' } };

/** A value of exactly `length` characters that the attribute's other rules accept, distinct per call. */
function valueOfLength(path: string, length: number): string {
  const tag = randomBytes(4).toString('hex');
  if (path === 'emails.value') return `${tag}${'x'.repeat(length - tag.length - '@example.com'.length)}@example.com`;
  if (path === 'phoneNumbers.value') return `+41 79 123 45 67${'-'.repeat(length - 16)}`;
  if (path === 'preferredLanguage' || path === 'locale') return `en-${'a'.repeat(length - 3)}`;
  if (path === 'profileUrl' || path === 'photos.value') return `https://example.com/${tag}${'x'.repeat(length - 28)}`;
  return `${tag}${'x'.repeat(length - tag.length)}`;
}

/** `{ name: { givenName: v } }`, `{ emails: [{ value: …, type: v }] }`, `{ [ENTERPRISE]: { manager: { value: v } } }`. */
function bodyWith(path: string, value: string): Record<string, unknown> {
  const inExtension = path.startsWith(`${ENTERPRISE}:`);
  const [top, sub] = (inExtension ? path.slice(ENTERPRISE.length + 1) : path).split('.');
  let part: unknown = sub === undefined ? value : { [sub]: value };
  if (MULTI_VALUED.has(top)) part = [{ ...ENTRY_BASE[top], ...(part as object) }];
  return inExtension ? { [ENTERPRISE]: { department: 'Sales', [top]: part } } : { [top]: part };
}

/** How the 400 names the attribute: with the index of the one entry sent. */
function shownAs(path: string): string {
  const [top, ...rest] = path.startsWith(`${ENTERPRISE}:`) ? [path] : path.split('.');
  return MULTI_VALUED.has(top) ? `${top}[0].${rest.join('.')}` : path;
}

function userBody(extra: Record<string, unknown>): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA, ENTERPRISE],
    userName: unique('bounds'),
    name: { givenName: 'Barbara', familyName: 'Jensen' },
    emails: [{ value: 'barbara@example.com', type: 'work', primary: true }],
    [ENTERPRISE]: { department: 'Sales' },
    ...extra,
  };
}

/** Digs the value at a bound path out of a stored resource (the one entry for multi-valued attributes). */
function storedAt(resource: any, path: string): unknown {
  const inExtension = path.startsWith(`${ENTERPRISE}:`);
  const [top, sub] = (inExtension ? path.slice(ENTERPRISE.length + 1) : path).split('.');
  let node = inExtension ? resource[ENTERPRISE]?.[top] : resource[top];
  if (Array.isArray(node)) node = node[0];
  return sub === undefined ? node : node?.[sub];
}

/**
 * docs/product-rules.md, "SCIM": every field has a length bound checked before the database, with the same 400 on SQLite
 * and MariaDB. Generated from the bounds the validator uses (src/scim/schema/scim-bounds.ts), so a new attribute
 * of the schema is tested without a line here: each writable string at its bound is stored, one character more is
 * refused as invalidValue naming the attribute, by POST, PUT and PATCH, and changes nothing.
 */
describe('SCIM: every writable string has a bound, the same on both databases', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  async function snapshot(path: string) {
    return {
      users: await countRows(svc, 'users'),
      groups: await countRows(svc, 'org_groups'),
      events: await countRows(svc, 'events'),
      resource: (await t.scim('GET', path)).body,
    };
  }

  function refusedOver(res: ApiResponse, attribute: string, bound: number) {
    assertScimError(res, 400, 'invalidValue');
    assert.ok(res.body.detail.includes(attribute) && res.body.detail.includes(`at most ${bound} characters`), `${attribute}: ${res.body.detail}`);
  }

  it('covers the attributes the issue names', () => {
    for (const path of [
      'userName',
      'externalId',
      'preferredLanguage',
      'locale',
      'name.middleName',
      'emails.display',
      'addresses.streetAddress',
      'x509Certificates.value',
      `${ENTERPRISE}:employeeNumber`,
      `${ENTERPRISE}:manager.value`,
    ]) {
      assert.ok(USER_STRING_BOUNDS.has(path), path);
    }
    assert.deepEqual([...GROUP_STRING_BOUNDS.keys()].sort(), ['displayName', 'externalId']);
  });

  for (const [path, bound] of USER_STRING_BOUNDS) {
    it(`User ${path}: ${bound} characters are stored, ${bound + 1} are refused`, async () => {
      const existing = await createUser(t, userBody({}));
      const at = `/Users/${existing.id}`;
      const over = () => bodyWith(path, valueOfLength(path, bound + 1));
      const unchanged = await snapshot(at);
      refusedOver(await t.scim('POST', '/Users', { body: userBody(over()) }), shownAs(path), bound);
      refusedOver(await t.scim('PUT', at, { body: userBody(over()) }), shownAs(path), bound);
      refusedOver(await t.scim('PATCH', at, { body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: over() }] } }), shownAs(path), bound);
      assert.deepEqual(await snapshot(at), unchanged);

      const posted = bodyWith(path, valueOfLength(path, bound));
      const created = await createUser(t, userBody(posted));
      const put = bodyWith(path, valueOfLength(path, bound));
      const replaced = await t.scim('PUT', at, { body: userBody(put) });
      assert.equal(replaced.status, 200, replaced.text);
      const patched = bodyWith(path, valueOfLength(path, bound));
      const patch = await t.scim('PATCH', at, { body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: patched }] } });
      assert.ok(patch.status === 200 || patch.status === 204, patch.text);
      // Phone numbers are stored compacted (docs/product-rules.md, "Domain"); every other value as sent.
      if (path !== 'phoneNumbers.value') {
        const read = (id: string) => t.scim('GET', `/Users/${id}?attributes=${encodeURIComponent(`${path.replace(/\.[^.:]*$/, '')},${ON_REQUEST}`)}`);
        assert.equal(storedAt((await read(created.id)).body, path), storedAt(posted, path));
        assert.equal(storedAt((await read(existing.id)).body, path), storedAt(patched, path));
      }
    });
  }

  for (const [path, bound] of GROUP_STRING_BOUNDS) {
    it(`Group ${path}: ${bound} characters are stored, ${bound + 1} are refused`, async () => {
      const groupBody = (extra: Record<string, string>) => ({ schemas: [GROUP_SCHEMA], displayName: unique('group'), ...extra });
      const existing = await t.scim('POST', '/Groups', { body: groupBody({}) });
      assert.equal(existing.status, 201, existing.text);
      const at = `/Groups/${existing.body.id}`;
      const unchanged = await snapshot(at);
      refusedOver(await t.scim('POST', '/Groups', { body: groupBody({ [path]: valueOfLength(path, bound + 1) }) }), path, bound);
      refusedOver(await t.scim('PUT', at, { body: groupBody({ [path]: valueOfLength(path, bound + 1) }) }), path, bound);
      refusedOver(
        await t.scim('PATCH', at, { body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path, value: valueOfLength(path, bound + 1) }] } }),
        path,
        bound,
      );
      assert.deepEqual(await snapshot(at), unchanged);

      const posted = valueOfLength(path, bound);
      const created = await t.scim('POST', '/Groups', { body: groupBody({ [path]: posted }) });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body[path], posted);
      const put = await t.scim('PUT', at, { body: groupBody({ [path]: valueOfLength(path, bound) }) });
      assert.equal(put.status, 200, put.text);
      const patched = valueOfLength(path, bound);
      const patch = await t.scim('PATCH', at, { body: { schemas: [PATCH_OP], Operations: [{ op: 'replace', path, value: patched }] } });
      assert.ok(patch.status === 200 || patch.status === 204, patch.text);
      assert.equal((await t.scim('GET', at)).body[path], patched);
    });
  }

  it('counts characters as MariaDB does: a bound of astral characters is stored, one more is refused', async () => {
    const bound = USER_STRING_BOUNDS.get('nickName')!;
    const created = await createUser(t, userBody({ nickName: '😀'.repeat(bound) }));
    assert.equal(created.nickName, '😀'.repeat(bound));
    refusedOver(await t.scim('POST', '/Users', { body: userBody({ nickName: '😀'.repeat(bound + 1) }) }), 'nickName', bound);
  });
});
