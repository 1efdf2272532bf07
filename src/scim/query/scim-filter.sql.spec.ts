import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFilter } from '../filter/index.js';
import { ScimError } from '../errors/scim-error.js';
import { compileFilter } from './scim-filter.sql.js';

/** Shapes of the compiled SQL; what it selects is checked against real rows in test/scim/scim-list.test.ts. */
describe('filter → SQL', () => {
  it('binds every value as a parameter, never in the SQL text', () => {
    const { sql, params } = compileFilter(parseFilter(`userName eq "O'Brien" or emails[type eq "work" and value co "x%_!"]`), 'sqlite');
    assert.ok(!sql.includes("O'Brien") && !sql.includes('x%'), sql);
    assert.deepEqual(Object.values(params), ["o'brien", 'work', '%x!%!_!!%']);
  });

  it('compares userName through the lower-cased, indexed column', () => {
    const { sql } = compileFilter(parseFilter('USERNAME EQ "ABC"'), 'sqlite');
    assert.match(sql, /u\.user_name_lower = :f0\)/);
  });

  it('on MariaDB also compares lengths (utf8mb4_bin is PAD SPACE) and folds other columns with LOWER()', () => {
    assert.match(
      compileFilter(parseFilter('userName eq "ABC"'), 'mysql').sql,
      /u\.user_name_lower = :f0 AND CHAR_LENGTH\(u\.user_name_lower\) = CHAR_LENGTH\(:f0\)/,
    );
    assert.match(
      compileFilter(parseFilter('title gt "a"'), 'mysql').sql,
      /REPLACE\(LOWER\(REPLACE\(u\.title, 'İ', 'i̇'\)\), 'ς', 'σ'\) > :f0 COLLATE utf8mb4_nopad_bin/,
    );
    assert.match(compileFilter(parseFilter('title eq "a"'), 'sqlite').sql, /portcullis_fold\(u\.title\) = :f0/);
  });

  it('turns unsupported attributes and operator combinations into invalidFilter', () => {
    for (const filter of ['nickName[value eq "x"]', 'meta.created sw "2020"', 'emails[display eq "x"]', 'groups eq "g"', 'title eq 5']) {
      assert.throws(
        () => compileFilter(parseFilter(filter), 'sqlite'),
        (e: unknown) => e instanceof ScimError && e.scimType === 'invalidFilter',
        filter,
      );
    }
  });
});
