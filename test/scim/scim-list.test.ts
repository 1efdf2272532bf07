import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { matchesFilter, parseFilter } from '../../src/scim/filter/index.js';
import { ENTERPRISE, USER_SCHEMA, assertScimError, createUser, scimTenant } from './scim-helpers.js';
import type { ScimTenant } from './scim-helpers.js';
import { useService } from '../support/fixtures.js';

const PEOPLE = [
  {
    userName: 'adele.vance',
    given: 'Adele',
    family: 'Vance',
    email: 'AdeleV@Example.com',
    type: 'work',
    phone: '+1 425-555-0101',
    title: 'Retail Manager',
    userType: 'Employee',
    active: true,
    externalId: 'E-1',
  },
  {
    userName: 'grady.archie',
    given: 'Grady',
    family: 'Archie',
    email: 'grady@example.org',
    type: 'home',
    phone: '+1 425 555 0102',
    title: 'Designer',
    userType: 'Contractor',
    active: false,
    externalId: undefined,
  },
  {
    userName: 'Lynne.Robbins',
    given: 'Lynne',
    family: 'Robbins',
    email: 'lynne@example.com',
    type: 'work',
    phone: undefined,
    title: undefined,
    userType: 'Employee',
    active: true,
    externalId: 'e-3',
  },
  {
    userName: 'megan.bowen',
    given: 'Megan',
    family: 'Bowen',
    email: 'megan@contoso.com',
    type: 'other',
    phone: '+44 20 7946 0958',
    title: 'Marketing Manager',
    userType: undefined,
    active: true,
    externalId: 'E-4',
  },
  {
    userName: 'diego.siciliani',
    given: 'Diego',
    family: 'Siciliani',
    email: 'diego@example.com',
    type: 'work',
    phone: undefined,
    title: 'HR Manager',
    userType: 'Intern',
    active: true,
    externalId: 'E-5',
  },
  {
    userName: 'pradeep_gupta',
    given: 'Pradeep',
    family: 'Gupta',
    email: 'p%g@example.com',
    type: 'work',
    phone: undefined,
    title: undefined,
    userType: undefined,
    active: true,
    externalId: undefined,
  },
];

/**
 * The filter compiled to SQL must agree with the in-memory matcher of RFC 7644 §3.4.2.2 on every
 * filter below: a differential test over real rows, on SQLite and MariaDB.
 */
const FILTERS = [
  'userName eq "ADELE.VANCE"',
  'userName ne "adele.vance"',
  'userName co "E.V"',
  'userName sw "lynne"',
  'userName ew "GUPTA"',
  'userName gt "l"',
  'userName pr',
  'id pr',
  'externalId eq "E-1"',
  'externalId eq "e-1"',
  'externalId ne "E-1"',
  'externalId pr',
  'not (externalId pr)',
  'externalId sw "E"',
  'name.familyName eq "vance"',
  'name.familyName co "IC"',
  'name.givenName sw "d"',
  'name.givenName ew "E"',
  'name.familyName ne "Archie"',
  'emails eq "adelev@example.com"',
  'emails.value co "EXAMPLE.COM"',
  'emails.value ew ".org"',
  'emails.value sw "p%"',
  'emails.value co "_"',
  'emails[type eq "work"]',
  'emails[type eq "work" and value co "diego"]',
  'emails.type eq "home"',
  'emails[not (type eq "work")]',
  'active eq true',
  'active eq false',
  'active ne true',
  'title pr',
  'title co "manager"',
  'userType eq "employee"',
  'displayName pr',
  'phoneNumbers.value eq "+14255550101"',
  'phoneNumbers pr',
  'not (phoneNumbers pr)',
  'urn:ietf:params:scim:schemas:core:2.0:User:userName sw "m"',
  'USERNAME EQ "megan.bowen"',
  '(userName sw "a" or userName sw "g") and active eq true',
  'not (userName sw "a" or title pr)',
  'userName eq null',
  'title eq null',
  'title ne null',
  'meta.created gt "2000-01-01T00:00:00Z"',
  'meta.lastModified lt "2000-01-01T00:00:00Z"',
  'meta.created ge "2000-01-01" and meta.created le "2999-12-31T00:00:00.000Z"',
];

describe('SCIM list and search: filters, sorting, paging, attributes', () => {
  const svc = useService();
  let t: ScimTenant;
  const ids: string[] = [];
  let all: any[] = [];
  before(async () => {
    t = await scimTenant(svc);
    for (const p of PEOPLE) {
      const user = await createUser(t, {
        schemas: [USER_SCHEMA],
        userName: p.userName,
        name: { givenName: p.given, familyName: p.family },
        emails: [
          { value: p.email, type: p.type, primary: true },
          { value: `${p.given}@second.test`, type: 'other' },
        ],
        ...(p.phone ? { phoneNumbers: [{ value: p.phone, type: 'work' }] } : {}),
        ...(p.title ? { title: p.title } : {}),
        ...(p.userType ? { userType: p.userType } : {}),
        ...(p.externalId ? { externalId: p.externalId } : {}),
        active: p.active,
      });
      ids.push(user.id);
    }
    all = (await t.scim('GET', '/Users?attributes=userName,name,emails,phoneNumbers,title,userType,externalId,active,meta,displayName')).body.Resources;
    assert.equal(all.length, PEOPLE.length);
  });

  for (const filter of FILTERS) {
    it(`filter ${filter} agrees with the in-memory matcher`, async () => {
      const res = await t.scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      assert.equal(res.status, 200, res.text);
      const expected = all
        .filter((u) => matchesFilter(parseFilter(filter), u))
        .map((u) => u.id)
        .sort();
      assert.deepEqual(res.body.Resources.map((u: any) => u.id).sort(), expected);
      assert.equal(res.body.totalResults, expected.length);
    });
  }

  it("unquoted string values (as in Microsoft's reference collection) are 400 invalidFilter (RFC 7644 §3.4.2.2)", async () => {
    for (const filter of ['userName sw adele', 'userName eq adele.vance', 'meta.created gt 2015-10-10T14:38:21Z', 'emails[type eq work]']) {
      assertScimError(await t.scim('GET', `/Users?filter=${encodeURIComponent(filter)}`), 400, 'invalidFilter');
    }
  });

  it('unsupported or malformed filters are 400 invalidFilter', async () => {
    for (const filter of [
      'userName eq',
      'nickName[value eq "x"]',
      'active gt true',
      'meta.created co "2020"',
      'userName eq 12',
      'x'.repeat(1001),
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "x"',
      'addresses.locality eq "x"',
    ]) {
      assertScimError(await t.scim('GET', `/Users?filter=${encodeURIComponent(filter)}`), 400, 'invalidFilter');
    }
  });

  it('sorts ascending by default and descending on request, ties broken by id', async () => {
    const asc = await t.scim('GET', '/Users?sortBy=name.familyName');
    assert.deepEqual(
      asc.body.Resources.map((u: any) => u.name.familyName),
      ['Archie', 'Bowen', 'Gupta', 'Robbins', 'Siciliani', 'Vance'],
    );
    const desc = await t.scim('GET', '/Users?sortBy=userName&sortOrder=descending');
    assert.deepEqual(
      desc.body.Resources.map((u: any) => u.userName.toLowerCase()),
      PEOPLE.map((p) => p.userName.toLowerCase())
        .sort()
        .reverse(),
    );
    for (const sortBy of ['meta.created', 'meta.lastModified', 'id', 'username', 'name.givenName', 'emails', 'emails.value']) {
      const res = await t.scim('GET', `/Users?sortBy=${sortBy}`);
      assert.equal(res.status, 200, sortBy);
      assert.equal(res.body.Resources.length, PEOPLE.length);
    }
    const tie = await t.scim('GET', '/Users?sortBy=active');
    assertScimError(tie, 400, 'invalidValue');
    const byCreated = (await t.scim('GET', '/Users?sortBy=meta.created')).body.Resources.map((u: any) => `${u.meta.created}|${u.id}`);
    assert.deepEqual(byCreated, [...byCreated].sort(), 'ordered by created, then id');
  });

  it('pages with startIndex and count; count 0 gives only totalResults; over 100 gives 100', async () => {
    const pages = [];
    for (let start = 1; start <= PEOPLE.length; start += 4) {
      const res = await t.scim('GET', `/Users?sortBy=userName&startIndex=${start}&count=4`);
      assert.equal(res.body.startIndex, start);
      assert.equal(res.body.itemsPerPage, res.body.Resources.length);
      assert.equal(res.body.totalResults, PEOPLE.length);
      pages.push(...res.body.Resources.map((u: any) => u.id));
    }
    assert.equal(new Set(pages).size, PEOPLE.length);
    const zero = await t.scim('GET', '/Users?count=0');
    assert.equal(zero.body.totalResults, PEOPLE.length);
    assert.deepEqual(zero.body.Resources, []);
    assert.equal((await t.scim('GET', '/Users?count=1000')).body.Resources.length, PEOPLE.length);
    assert.equal((await t.scim('GET', '/Users?startIndex=0&count=-5')).body.startIndex, 1);
    assertScimError(await t.scim('GET', '/Users?count=ten'), 400, 'invalidValue');
  });

  it('attributes and excludedAttributes, on GET and .search', async () => {
    const only = await t.scim('GET', '/Users?attributes=userName,name.givenName,emails.value');
    const first = only.body.Resources[0];
    assert.deepEqual(Object.keys(first).sort(), ['emails', 'id', 'name', 'schemas', 'userName']);
    assert.deepEqual(Object.keys(first.name), ['givenName']);
    assert.deepEqual(Object.keys(first.emails[0]), ['value']);
    const excluded = await t.scim('GET', `/Users/${ids[0]}?excludedAttributes=emails,meta,id`);
    assert.equal(excluded.body.emails, undefined);
    assert.equal(excluded.body.meta, undefined);
    assert.equal(excluded.body.id, ids[0], 'id is always returned');
    const typed = await t.scim('GET', `/Users/${ids[0]}?attributes=userType`);
    assert.equal(typed.body.userType, 'Employee');
    const search = await t.scim('POST', '/Users/.search', {
      body: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'],
        filter: 'userName sw "a"',
        attributes: ['userName'],
        sortBy: 'userName',
        sortOrder: 'descending',
        startIndex: 1,
        count: 10,
      },
    });
    assert.equal(search.status, 200, search.text);
    assert.deepEqual(
      search.body.Resources.map((u: any) => u.userName),
      ['adele.vance'],
    );
    assert.deepEqual(Object.keys(search.body.Resources[0]).sort(), ['id', 'schemas', 'userName']);
    assertScimError(await t.scim('POST', '/Users/.search', { body: { filter: 'userName pr' } }), 400, 'invalidSyntax');
  });

  it('lists only human users of this organization', async () => {
    const other = await scimTenant(svc);
    await createUser(other, { schemas: [USER_SCHEMA, ENTERPRISE], userName: 'adele.vance', [ENTERPRISE]: { department: 'X' } });
    const res = await t.scim('GET', '/Users');
    assert.equal(res.body.totalResults, PEOPLE.length, 'neither the machine caller nor another org appears');
  });
});
