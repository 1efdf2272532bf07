import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { unique, useService } from '../support/fixtures.js';
import { PATCH_OP, assertScimError, createUser, scimTenant, userBody } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const MAX_OPERATIONS = 1000;
const MAX_VALUES = 100;

/**
 * Before its bounds, one PATCH could hold the event loop for half a minute (2,000 value-filter removals over a
 * user with 10,000 e-mails). Operations per PATCH and values per multi-valued attribute are bounded and
 * advertised in ServiceProviderConfig; over a bound: 400 invalidValue, nothing changed.
 */
describe('SCIM: operations per PATCH and values per attribute are bounded', () => {
  const svc = useService();
  let t: ScimTenant;
  before(async () => {
    t = await scimTenant(svc);
  });

  const emails = (n: number, tag = 'm') => Array.from({ length: n }, (_, i) => ({ value: `${tag}${i}@example.com`, type: 'work' }));
  const patch = (path: string, Operations: unknown[]) => t.scim('PATCH', path, { body: { schemas: [PATCH_OP], Operations } });

  it('advertises both bounds in ServiceProviderConfig', async () => {
    const spc = await t.scim('GET', '/ServiceProviderConfig');
    assert.deepEqual(spc.body.patch, { supported: true, maxOperations: MAX_OPERATIONS, maxValuesPerAttribute: MAX_VALUES });
  });

  it(`takes ${MAX_OPERATIONS} operations in one PATCH and refuses ${MAX_OPERATIONS + 1} on Users and Groups, changing nothing`, async () => {
    const user = await createUser(t, userBody(unique('ops')));
    const renames = (n: number) => Array.from({ length: n }, (_, i) => ({ op: 'replace', path: 'displayName', value: `name ${i}` }));
    const refused = await patch(`/Users/${user.id}`, renames(MAX_OPERATIONS + 1));
    assertScimError(refused, 400, 'invalidValue');
    assert.match(refused.body.detail, /at most 1000 operations/);
    assert.equal((await t.scim('GET', `/Users/${user.id}`)).body.displayName, user.displayName, 'nothing changed');
    const accepted = await patch(`/Users/${user.id}`, renames(MAX_OPERATIONS));
    assert.equal(accepted.status, 204, accepted.text);
    assert.equal((await t.scim('GET', `/Users/${user.id}`)).body.displayName, `name ${MAX_OPERATIONS - 1}`);

    const group = await t.scim('POST', '/Groups', { body: { schemas: [GROUP], displayName: unique('ops') } });
    const groupRenames = Array.from({ length: MAX_OPERATIONS + 1 }, (_, i) => ({ op: 'replace', value: { displayName: unique(`g${i}`) } }));
    assertScimError(await patch(`/Groups/${group.body.id}`, groupRenames), 400, 'invalidValue');
    assert.equal((await t.scim('GET', `/Groups/${group.body.id}`)).body.displayName, group.body.displayName);
  });

  it(`takes ${MAX_VALUES} e-mails and refuses ${MAX_VALUES + 1}, on create, replace and PATCH`, async () => {
    assertScimError(await t.scim('POST', '/Users', { body: userBody(unique('many'), { emails: emails(MAX_VALUES + 1) }) }), 400, 'invalidValue');
    const user = await createUser(t, userBody(unique('many'), { emails: emails(MAX_VALUES) }));
    assert.equal(user.emails.length, MAX_VALUES);
    assertScimError(await t.scim('PUT', `/Users/${user.id}`, { body: userBody(user.userName, { emails: emails(MAX_VALUES + 1) }) }), 400, 'invalidValue');
    const grown = await patch(`/Users/${user.id}`, [{ op: 'add', path: 'emails', value: [{ value: 'one-more@example.com' }] }]);
    assertScimError(grown, 400, 'invalidValue');
    assert.match(grown.body.detail, /at most 100 values/);
    assert.equal((await t.scim('GET', `/Users/${user.id}`)).body.emails.length, MAX_VALUES, 'nothing changed');
  });

  it(`a PATCH of ${MAX_OPERATIONS} value-filter removals over ${MAX_VALUES} e-mails is applied whole`, async () => {
    const user = await createUser(t, userBody(unique('filters'), { emails: emails(MAX_VALUES) }));
    const removals = Array.from({ length: MAX_OPERATIONS }, (_, i) => ({ op: 'remove', path: `emails[value eq "m${i % (MAX_VALUES + 10)}@example.com"]` }));
    const res = await patch(`/Users/${user.id}`, removals);
    assert.equal(res.status, 204, res.text);
    assert.equal((await t.scim('GET', `/Users/${user.id}`)).body.emails, undefined, 'every e-mail removed');
    const health = await fetch(new URL('/healthz', svc.config.publicUrl));
    assert.equal(health.status, 200);
  });
});
