import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AttributePathSet } from './scim-attribute-set.js';
import { parseDateTime } from './scim-filter.datetime.js';

describe('parseDateTime', () => {
  it('parses full date-times with Z or an offset', () => {
    assert.equal(parseDateTime('2011-05-13T04:42:34Z'), Date.UTC(2011, 4, 13, 4, 42, 34));
    assert.equal(parseDateTime('2011-05-13T06:42:34+02:00'), Date.UTC(2011, 4, 13, 4, 42, 34));
    assert.equal(parseDateTime('2015-10-10T14:38:21.8617979-07:00'), Date.UTC(2015, 9, 10, 21, 38, 21, 861));
    assert.equal(parseDateTime('2015-10-10T14:38:21-0700'), Date.UTC(2015, 9, 10, 21, 38, 21));
  });

  it('reads partial dates as the start of the period and zone-less times as UTC', () => {
    assert.equal(parseDateTime('2021-09'), Date.UTC(2021, 8, 1));
    assert.equal(parseDateTime('2021-09-08'), Date.UTC(2021, 8, 8));
    assert.equal(parseDateTime('2021-09-08T10:11'), Date.UTC(2021, 8, 8, 10, 11));
    assert.equal(parseDateTime('2021-09-08T10:11:12.5'), Date.UTC(2021, 8, 8, 10, 11, 12, 500));
  });

  it('rejects text that is not a valid date-time', () => {
    for (const text of ['2021', '2021-13', '2021-02-30', '2021-09-08T25:00Z', 'bjensen', '2021-09-08 10:11', '']) {
      assert.equal(parseDateTime(text), undefined, text);
    }
    assert.equal(parseDateTime('2024-02-29'), Date.UTC(2024, 1, 29));
  });
});

describe('AttributePathSet', () => {
  it('matches paths ignoring case and supports *.sub wildcards', () => {
    const set = new AttributePathSet(['id', 'externalId', '*.primary', 'urn:x:y:User:manager']);
    assert.equal(set.has('ID'), true);
    assert.equal(set.has('externalid'), true);
    assert.equal(set.has('emails.primary'), true);
    assert.equal(set.has('urn:x:y:user:manager'), true);
    assert.equal(set.has('primary'), false);
    assert.equal(set.has('userName'), false);
  });
});
