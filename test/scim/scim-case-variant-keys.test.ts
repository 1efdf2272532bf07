import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { countRows, unique, useService } from '../support/fixtures.js';
import { ENTERPRISE, PATCH_OP, USER_SCHEMA, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

// RFC 7643 §2.1: "Attribute names are case insensitive": a body naming one attribute twice in two
// spellings is refused (400 invalidSyntax) instead of storing whichever spelling came last.
describe('SCIM User bodies that spell one attribute twice', () => {
  const svc = useService();
  let t: ScimTenant;
  let existing: any;
  before(async () => {
    t = await scimTenant(svc);
    existing = await createUser(t, userBody(unique('existing')));
  });

  /** Sends the request; it must be 400 invalidSyntax, and the users, the events and `existing` stay as they were. */
  async function refused(method: 'POST' | 'PUT' | 'PATCH', body: unknown) {
    const users = await countRows(svc, 'users');
    const events = await countRows(svc, 'events');
    const before = (await t.scim('GET', `/Users/${existing.id}`)).body;
    const path = method === 'POST' ? '/Users' : `/Users/${existing.id}`;
    assertScimError(await t.scim(method, path, { body }), 400, 'invalidSyntax');
    assert.equal(await countRows(svc, 'users'), users);
    assert.equal(await countRows(svc, 'events'), events);
    assert.deepEqual((await t.scim('GET', `/Users/${existing.id}`)).body, before);
  }

  const variants: [string, (userName: string) => Record<string, unknown>][] = [
    ['top level', (userName) => ({ ...userBody(userName), username: `${userName}-other` })],
    ['in name', (userName) => ({ ...userBody(userName), name: { givenName: 'Ada', givenname: 'Grace', familyName: 'L' } })],
    ['in an emails entry', (userName) => ({ ...userBody(userName), emails: [{ value: 'a@example.com', Value: 'b@example.com' }] })],
    [
      'in the enterprise extension',
      (userName) => ({ ...userBody(userName), schemas: [USER_SCHEMA, ENTERPRISE], [ENTERPRISE]: { department: 'a', Department: 'b' } }),
    ],
  ];

  for (const [where, body] of variants) {
    it(`POST and PUT are refused: ${where}`, async () => {
      await refused('POST', body(unique('dup')));
      await refused('PUT', body(existing.userName));
    });
  }

  it('a PATCH value is refused, with and without a path', async () => {
    await refused('PATCH', { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { displayName: 'A', displayname: 'B' } }] });
    await refused('PATCH', { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name', value: { givenName: 'A', GIVENNAME: 'B' } }] });
  });

  it('one spelling alone, in any case, is accepted', async () => {
    const created = await createUser(t, { schemas: [USER_SCHEMA], USERNAME: unique('upper'), Name: { GivenName: 'Ada', familyname: 'L' } });
    assert.equal(created.name.givenName, 'Ada');
  });
});
