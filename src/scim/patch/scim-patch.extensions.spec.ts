import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch } from './scim-patch.engine.js';
import { DEFAULT_PATCH_SCHEMA } from './scim-patch.schema.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const CUSTOM = 'urn:example:params:scim:schemas:extension:acme:1.0:User';

function user(): Record<string, unknown> {
  return { schemas: [CORE_USER], id: 'u1', userName: 'bjensen' };
}

describe('applyPatch: schema URNs and extensions', () => {
  it('stores extension attributes under the URN key and lists the URN in schemas', () => {
    const result = applyPatch(user(), [{ op: 'add', path: `${ENTERPRISE}:department`, value: 'Sales' }]);
    assert.deepEqual(result, { schemas: [CORE_USER, ENTERPRISE], id: 'u1', userName: 'bjensen', [ENTERPRISE]: { department: 'Sales' } });
  });

  it('accepts the URN as a key holding an object, in path-less and path forms', () => {
    const pathless = applyPatch(user(), [{ op: 'add', value: { [ENTERPRISE]: { department: 'D', costCenter: 'C' } } }]);
    assert.deepEqual(pathless[ENTERPRISE], { department: 'D', costCenter: 'C' });
    const withPath = applyPatch(pathless, [{ op: 'replace', path: ENTERPRISE, value: { department: 'E', manager: 'm1' } }]);
    assert.deepEqual(withPath[ENTERPRISE], { department: 'E', costCenter: 'C', manager: { value: 'm1' } });
  });

  it('matches the URN and extension attribute names ignoring case, keeping the stored key', () => {
    const start = { ...user(), 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:user': { Department: 'A' } };
    const result = applyPatch(start, [{ op: 'replace', path: `${ENTERPRISE.toUpperCase()}:DEPARTMENT`, value: 'B' }]);
    assert.deepEqual(result['urn:ietf:params:scim:schemas:extension:enterprise:2.0:user'], { Department: 'B' });
    assert.equal(result[ENTERPRISE], undefined);
  });

  it('patches manager.value and removes the extension when it becomes empty', () => {
    const withManager = applyPatch(user(), [{ op: 'add', path: `${ENTERPRISE}:manager.value`, value: 'm1' }]);
    assert.deepEqual(withManager[ENTERPRISE], { manager: { value: 'm1' } });
    const removed = applyPatch(withManager, [{ op: 'remove', path: `${ENTERPRISE}:manager.value` }]);
    assert.deepEqual(removed, user());
  });

  it('removes a whole extension by its URN', () => {
    const start = { ...user(), schemas: [CORE_USER, ENTERPRISE], [ENTERPRISE]: { department: 'D' } };
    assert.deepEqual(applyPatch(start, [{ op: 'remove', path: ENTERPRISE }]), user());
  });

  it('reads core-schema URN paths as top-level attributes', () => {
    const result = applyPatch(user(), [
      { op: 'replace', path: `${CORE_USER}:userName`, value: 'babs' },
      { op: 'add', path: `${CORE_USER}:name.givenName`, value: 'Barbara' },
      { op: 'add', path: `${CORE_USER}:emails[type eq "work"].value`, value: 'w@x' },
      { op: 'replace', value: { [CORE_USER]: { title: 'T' } } },
    ]);
    assert.deepEqual(result, {
      schemas: [CORE_USER],
      id: 'u1',
      userName: 'babs',
      name: { givenName: 'Barbara' },
      emails: [{ type: 'work', value: 'w@x' }],
      title: 'T',
    });
  });

  it('supports extensions the caller configures, and ones the resource already has', () => {
    const configured = applyPatch(user(), [{ op: 'add', path: `${CUSTOM}:badge`, value: 'B1' }], {
      extensionSchemas: [...DEFAULT_PATCH_SCHEMA.extensionSchemas, CUSTOM],
    });
    assert.deepEqual(configured[CUSTOM], { badge: 'B1' });
    assert.deepEqual(configured['schemas'], [CORE_USER, CUSTOM]);
    const existing = applyPatch({ ...user(), [CUSTOM]: { badge: 'B1' } }, [{ op: 'replace', path: `${CUSTOM}:badge`, value: 'B2' }]);
    assert.deepEqual(existing[CUSTOM], { badge: 'B2' });
  });

  it('leaves schemas alone when the resource has no schemas array', () => {
    const result = applyPatch({ id: 'u1' }, [{ op: 'add', path: `${ENTERPRISE}:department`, value: 'D' }]);
    assert.deepEqual(result, { id: 'u1', [ENTERPRISE]: { department: 'D' } });
  });
});

describe('applyPatch: read-only and required attributes', () => {
  it('ignores a read-only attribute written with its current value (clients echo id and schemas)', () => {
    const result = applyPatch(user(), [{ op: 'replace', value: { id: 'u1', schemas: [CORE_USER, ENTERPRISE], userName: 'b' } }]);
    assert.deepEqual(result, { ...user(), userName: 'b' });
  });

  it('lets the caller declare more read-only attributes', () => {
    assert.throws(() => applyPatch(user(), [{ op: 'replace', path: 'userName', value: 'x' }], { readOnlyAttributes: ['id', 'userName'] }), {
      scimType: 'mutability',
    });
  });
});
