import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyPatch } from './scim-patch.engine.js';
import { ScimPatchError } from './scim-patch.errors.js';

describe('applyPatch: maxValuesPerAttribute', () => {
  const values = (n: number) => Array.from({ length: n }, (_, i) => ({ value: `v${i}` }));
  const options = { maxValuesPerAttribute: 3 };
  const refused = (detail: RegExp) => (e: unknown) => e instanceof ScimPatchError && e.scimType === 'invalidValue' && detail.test(e.message);

  it('refuses an operation that grows an attribute past the bound, naming it and the operation', () => {
    assert.throws(
      () => applyPatch({ emails: values(3) }, [{ op: 'add', path: 'emails', value: [{ value: 'x' }] }], options),
      refused(/Operations\[0\].*'emails' may hold at most 3 values/),
    );
  });

  it('refuses a value array longer than the bound, even for a removal', () => {
    assert.throws(
      () => applyPatch({ emails: values(2) }, [{ op: 'remove', path: 'emails', value: values(4) }], options),
      refused(/"value" may list at most 3 values/),
    );
  });

  it('lets an attribute stored over the bound shrink, and applies without a bound when none is given', () => {
    assert.equal((applyPatch({ emails: values(5) }, [{ op: 'remove', path: 'emails[value eq "v0"]' }], options).emails as unknown[]).length, 4);
    assert.equal((applyPatch({ emails: values(3) }, [{ op: 'add', path: 'emails', value: values(5).slice(3) }]).emails as unknown[]).length, 5);
  });
});
