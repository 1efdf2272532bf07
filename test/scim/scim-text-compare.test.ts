import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { matchesFilter, parseFilter } from '../../src/scim/filter/index.js';
import { USER_SCHEMA, createUser, scimTenant } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';
import { useService } from '../support/fixtures.js';

const PEOPLE = [
  { userName: 'Ärger', given: 'Ärger', family: 'ΣΊΣΥΦΟΣ', email: 'ÄRGER@EXAMPLE.COM', title: 'İstanbul Office', externalId: 'Ext-É' },
  { userName: 'σίσυφος', given: 'Ödön', family: 'σίσυφοσ', email: 'sisyphos@example.com', title: 'istanbul office', externalId: 'ext-é' },
  { userName: 'IRMAK', given: 'Irmak', family: 'Yılmaz', email: 'irmak@example.com', title: 'ırmak', externalId: 'pad' },
  { userName: 'straße', given: 'Ansel', family: 'STRASSE', email: 'strasse@example.com', title: 'pad  ', externalId: 'pad  ' },
];

/**
 * Case-insensitive comparison (RFC 7643 §2.2 caseExact false) follows one rule on SQLite and MariaDB,
 * the one the in-memory matcher uses (src/common/text/case-fold.ts): Unicode lower-casing without a
 * locale, final sigma as sigma. Turkish dotless ı and dotted İ are not paired with i/I (the tr locale's
 * rule), and ß is not "ss" (full case folding is not applied). Trailing spaces count on both databases.
 */
const CASES: [string, string[]][] = [
  ['userName eq "ärger"', ['Ärger']],
  ['userName eq "ÄRGER"', ['Ärger']],
  ['userName co "RGE"', ['Ärger']],
  ['userName eq "ΣΊΣΥΦΟΣ"', ['σίσυφος']],
  ['userName eq "σίσυφοσ"', ['σίσυφος']],
  ['userName sw "ΣΊΣ"', ['σίσυφος']],
  ['userName ew "ΟΣ"', ['σίσυφος']],
  ['name.familyName eq "σίσυφος"', ['Ärger', 'σίσυφος']],
  ['name.familyName ew "ΟΣ"', ['Ärger', 'σίσυφος']],
  ['name.familyName sw "σίσ"', ['Ärger', 'σίσυφος']],
  ['name.givenName eq "ÄRGER"', ['Ärger']],
  ['name.givenName sw "ö"', ['σίσυφος']],
  ['name.givenName co "DÖ"', ['σίσυφος']],
  ['emails.value eq "ärger@example.com"', ['Ärger']],
  ['emails[value sw "ÄRGER@"]', ['Ärger']],
  ['title eq "İSTANBUL OFFICE"', ['Ärger']],
  ['title eq "istanbul office"', ['σίσυφος']],
  ['title sw "İ"', ['Ärger']],
  ['userName eq "irmak"', ['IRMAK']],
  ['userName eq "ırmak"', []],
  ['name.familyName eq "YILMAZ"', []],
  ['name.familyName eq "yılmaz"', ['IRMAK']],
  ['title eq "IRMAK"', []],
  ['title eq "ırmak"', ['IRMAK']],
  ['name.familyName eq "straße"', []],
  ['userName eq "STRASSE"', []],
  ['externalId eq "ext-é"', ['σίσυφος']],
  ['externalId sw "Ext-É"', ['Ärger']],
  ['externalId ew "-é"', ['σίσυφος']],
  ['externalId co "t-É"', ['Ärger']],
  ['externalId eq "pad"', ['IRMAK']],
  ['externalId eq "pad  "', ['straße']],
  ['externalId ne "pad"', ['Ärger', 'σίσυφος', 'straße']],
  ['externalId sw "pad "', ['straße']],
  ['externalId ew "d  "', ['straße']],
  ['externalId ew "d "', []],
  ['externalId gt "pad"', ['straße']],
  ['title eq "pad"', []],
  ['title eq "PAD  "', ['straße']],
  ['title le "pad"', ['Ärger', 'σίσυφος']],
];

describe('SCIM filters compare text alike on SQLite and MariaDB (non-ASCII case, trailing spaces)', () => {
  const svc = useService();
  let t: ScimTenant;
  let all: any[] = [];
  before(async () => {
    t = await scimTenant(svc);
    for (const p of PEOPLE) {
      await createUser(t, {
        schemas: [USER_SCHEMA],
        userName: p.userName,
        name: { givenName: p.given, familyName: p.family },
        emails: [{ value: p.email, type: 'work', primary: true }],
        title: p.title,
        externalId: p.externalId,
      });
    }
    all = (await t.scim('GET', '/Users?attributes=userName,name,emails,title,externalId')).body.Resources;
    assert.equal(all.length, PEOPLE.length);
  });

  for (const [filter, expected] of CASES) {
    it(`${filter} → ${JSON.stringify(expected)}, as the in-memory matcher says`, async () => {
      const res = await t.scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      assert.equal(res.status, 200, res.text);
      const got = res.body.Resources.map((u: any) => u.userName).sort();
      assert.deepEqual(got, [...expected].sort());
      assert.equal(res.body.totalResults, expected.length);
      const matched = all
        .filter((u) => matchesFilter(parseFilter(filter), u))
        .map((u) => u.userName)
        .sort();
      assert.deepEqual(matched, got, 'the in-memory matcher (PATCH value filters) agrees');
    });
  }
});
