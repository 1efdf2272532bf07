import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { matchesFilter, matchesValueFilter, type MatchOptions } from './scim-filter.matcher.js';
import { parseFilter, type ParseFilterOptions } from './scim-filter.parser.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

const bjensen = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', ENTERPRISE],
  id: '2819c223-7f76-453a-919d-413861904646',
  externalId: 'BJensen-EXT',
  userName: 'bjensen@example.com',
  name: { familyName: 'Jensen', givenName: 'Barbara', middleName: '' },
  title: '',
  nickName: null,
  active: true,
  loginCount: 7,
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@jensen.org', type: 'home' },
  ],
  phoneNumbers: [],
  addresses: [{ type: 'work', primary: false }],
  members: [{ value: 'Abc', $ref: 'https://example.com/v2/Users/Abc' }],
  meta: { created: '2010-01-23T04:56:22Z', lastModified: '2011-05-13T06:42:34+02:00' },
  [ENTERPRISE]: { department: 'Tour Operations', manager: { value: '26118915-6090-4610-87e4-49d8ca9f808d' } },
};

function matches(filter: string, resource: object = bjensen, options?: MatchOptions, parse?: ParseFilterOptions): boolean {
  return matchesFilter(parseFilter(filter, parse), resource, options);
}

describe('matchesFilter: strings and case', () => {
  it('compares ordinary strings case-insensitively (caseExact false by default)', () => {
    assert.equal(matches('userName eq "BJENSEN@EXAMPLE.COM"'), true);
    assert.equal(matches('name.familyName sw "jen"'), true);
    assert.equal(matches('name.familyName ew "SEN"'), true);
    assert.equal(matches('title co ""'), true);
  });

  it('looks attribute names up ignoring case', () => {
    assert.equal(matches('USERNAME eq "bjensen@example.com"'), true);
    assert.equal(matches('Name.GIVENNAME eq "barbara"'), true);
  });

  it('compares id and externalId case-exactly by default (RFC 7643)', () => {
    assert.equal(matches('externalId eq "BJensen-EXT"'), true);
    assert.equal(matches('externalId eq "bjensen-ext"'), false);
    assert.equal(matches('id eq "2819C223-7F76-453A-919D-413861904646"'), false);
    assert.equal(matches('members.$ref eq "https://example.com/v2/users/abc"'), false);
  });

  it('uses the caller-supplied case-exact set, including inside value paths', () => {
    const options = { caseExactAttributes: ['members.value', 'userName'] };
    assert.equal(matches('members[value eq "abc"]', bjensen, options), false);
    assert.equal(matches('members[value eq "Abc"]', bjensen, options), true);
    assert.equal(matches('members.value eq "abc"', bjensen, options), false);
    assert.equal(matches('userName eq "BJENSEN@example.com"', bjensen, options), false);
    assert.equal(matches('externalId eq "bjensen-ext"', bjensen, options), true);
  });
});

describe('matchesFilter: multi-valued and complex attributes', () => {
  it('matches when any value matches', () => {
    assert.equal(matches('emails.type eq "home"'), true);
    assert.equal(matches('emails.value ew "@jensen.org"'), true);
    assert.equal(matches('emails.type eq "other"'), false);
  });

  it('compares a complex value through its "value" sub-attribute (emails co "example.com")', () => {
    assert.equal(matches('emails co "jensen.org"'), true);
    assert.equal(matches('userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")'), false);
  });

  it('matches simple multi-valued attributes such as schemas', () => {
    assert.equal(matches(`schemas eq "${ENTERPRISE}"`), true);
    assert.equal(matches(`schemas[value eq "${ENTERPRISE}"]`), true);
  });

  it('requires one value to satisfy a whole value filter', () => {
    assert.equal(matches('emails[type eq "home" and primary eq true]'), false);
    assert.equal(matches('emails.type eq "home" and emails.primary eq true'), true);
    assert.equal(matches('emails[type eq "work" and primary eq true]'), true);
    assert.equal(matches('emails[type eq "home" or value co "nobody"]'), true);
    assert.equal(matches('emails[not (type eq "work")].value ew ".org"'), true);
    assert.equal(matches('emails[type eq "work"] and addresses[type eq "home"]'), false);
  });

  it('treats ne as "some value differs", false for an unassigned attribute', () => {
    assert.equal(matches('emails.type ne "work"'), true);
    assert.equal(matches('addresses.type ne "work"'), false);
    assert.equal(matches('userType ne "Employee"'), false);
    assert.equal(matches('not (userType eq "Employee")'), true);
  });
});

describe('matchesFilter: presence and null', () => {
  it('pr is true only for non-empty values', () => {
    assert.equal(matches('userName pr'), true);
    assert.equal(matches('active pr'), true);
    assert.equal(matches('title pr'), false);
    assert.equal(matches('nickName pr'), false);
    assert.equal(matches('phoneNumbers pr'), false);
    assert.equal(matches('userType pr'), false);
    assert.equal(matches('name pr'), true);
    assert.equal(matches('name.middleName pr'), false);
    assert.equal(matches('x pr', { x: { a: null, b: '' } }), false);
    assert.equal(matches('x pr', { x: false }), true);
    assert.equal(matches('x pr', { x: 0 }), true);
  });

  it('eq null means unassigned and ne null means present', () => {
    assert.equal(matches('title eq null'), true);
    assert.equal(matches('userType eq null'), true);
    assert.equal(matches('userName eq null'), false);
    assert.equal(matches('userName ne null'), true);
    assert.equal(matches('phoneNumbers ne null'), false);
  });
});

describe('matchesFilter: numbers, booleans and dates', () => {
  it('compares numbers numerically and never with strings', () => {
    assert.equal(matches('loginCount gt 6.5 and loginCount le 7'), true);
    assert.equal(matches('loginCount eq "7"'), false);
    assert.equal(matches('loginCount gt "1"'), false);
  });

  it('compares booleans, accepting "True"/"False" strings', () => {
    assert.equal(matches('active eq true'), true);
    assert.equal(matches('active eq false'), false);
    assert.equal(matches('active eq "TRUE"'), true);
    assert.equal(matches('active ne "false"'), true);
    assert.equal(matches('active eq "yes"'), false);
  });

  it('orders date-times as instants, whatever their offset or precision', () => {
    assert.equal(matches('meta.lastModified gt "2011-05-13T04:42:34Z"'), false);
    assert.equal(matches('meta.lastModified ge "2011-05-13T04:42:34Z"'), true);
    assert.equal(matches('meta.lastModified eq "2011-05-13T04:42:34.000Z"'), true);
    assert.equal(matches('meta.lastModified lt "2011-05-13T04:42:34.001Z"'), true);
    assert.equal(matches('meta.created gt "2010-01-23T05:00:00+01:00"'), true, 'as text it would be false');
    assert.equal(matches('meta.created gt "2010-01"'), true);
  });

  it('accepts Date objects in the resource', () => {
    const resource = { meta: { created: new Date('2020-02-02T00:00:00Z') } };
    assert.equal(matches('meta.created eq "2020-02-02T01:00:00+01:00"', resource), true);
    assert.equal(matches('meta.created gt "2020-02-01"', resource), true);
    assert.equal(matches('meta.created sw "2020-02-02T"', resource), true);
  });

  it('evaluates the Microsoft reference collection filter with an unquoted date', () => {
    const users = ['2015-10-10T21:38:21Z', '2015-10-10T21:38:22Z'].map((created) => ({ meta: { created } }));
    const filter = parseFilter('meta.Created gt 2015-10-10T14:38:21.8617979-07:00', { allowUnquotedStrings: true });
    assert.deepEqual(
      users.map((u) => matchesFilter(filter, u)),
      [false, true],
    );
  });
});

describe('matchesFilter: schema URNs', () => {
  it('looks extension attributes up under their URN key', () => {
    assert.equal(matches(`${ENTERPRISE}:department eq "tour operations"`), true);
    assert.equal(matches(`${ENTERPRISE}:manager.value eq "26118915-6090-4610-87e4-49d8ca9f808d"`), true);
    assert.equal(matches(`${ENTERPRISE.toUpperCase()}:DEPARTMENT pr`), true);
    assert.equal(matches(`${ENTERPRISE} pr`), true);
    assert.equal(matches(`${ENTERPRISE}:department pr`, { userName: 'x' }), false);
  });

  it('reads core-schema URN paths at the top level', () => {
    assert.equal(matches('urn:ietf:params:scim:schemas:core:2.0:User:userName sw "bjensen"'), true);
    assert.equal(matches('urn:ietf:params:scim:schemas:core:2.0:User:name.familyName eq "jensen"'), true);
  });
});

describe('matchesFilter: class instances', () => {
  it('reads own properties of class instances such as ORM entities', () => {
    class Name {
      constructor(readonly givenName: string) {}
    }
    class UserEntity {
      userName = 'bjensen';
      name = new Name('Barbara');
    }
    assert.equal(matches('userName eq "BJENSEN" and name.givenName sw "bar"', new UserEntity()), true);
    assert.equal(matches('name pr', new UserEntity()), true);
  });
});

describe('matchesValueFilter', () => {
  it('evaluates a value filter against one element with paths relative to the attribute', () => {
    const filter = parseFilter('value eq "abc" and type eq "User"');
    assert.equal(matchesValueFilter(filter, { value: 'ABC', type: 'user' }, 'members'), true);
    assert.equal(matchesValueFilter(filter, { value: 'ABC', type: 'user' }, 'members', { caseExactAttributes: ['members.value'] }), false);
    assert.equal(matchesValueFilter(parseFilter('value eq "a"'), 'A', 'schemas'), true);
  });

  it('is used for Okta-style lookups: userName eq with different case', () => {
    assert.equal(matches('userName eq "BJensen@Example.com"'), true);
  });
});
