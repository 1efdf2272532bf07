import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FilterNode } from './scim-filter.ast.js';
import { formatFilter, formatPatchPath } from './scim-filter.format.js';
import { parseFilter, parsePatchPath } from './scim-filter.parser.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const CORE_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';

/** Compact rendering of the tree shape, e.g. `(or a:pr (and b:pr c:pr))`. */
function sexpr(node: FilterNode): string {
  switch (node.kind) {
    case 'compare':
      return `${node.attrPath.path}:${node.op}:${JSON.stringify(node.value)}`;
    case 'present':
      return `${node.attrPath.path}:pr`;
    case 'and':
    case 'or':
      return `(${node.kind} ${sexpr(node.left)} ${sexpr(node.right)})`;
    case 'not':
      return `(not ${sexpr(node.filter)})`;
    case 'valuePath':
      return `${node.attrPath.path}[${sexpr(node.filter)}]`;
  }
}

const shape = (filter: string): string => sexpr(parseFilter(filter));

describe('parseFilter: precedence and grouping', () => {
  it('binds "and" tighter than "or" (a or b and c)', () => {
    assert.equal(shape('a pr or b pr and c pr'), '(or a:pr (and b:pr c:pr))');
    assert.equal(shape('a pr and b pr or c pr'), '(or (and a:pr b:pr) c:pr)');
  });

  it('is left-associative', () => {
    assert.equal(shape('a pr and b pr and c pr'), '(and (and a:pr b:pr) c:pr)');
    assert.equal(shape('a pr or b pr or c pr'), '(or (or a:pr b:pr) c:pr)');
  });

  it('lets parentheses override precedence, nested to any depth', () => {
    assert.equal(shape('(a pr or b pr) and c pr'), '(and (or a:pr b:pr) c:pr)');
    assert.equal(shape('((a pr))'), 'a:pr');
    assert.equal(shape('a pr and (b pr or (c pr and (d pr or e pr)))'), '(and a:pr (or b:pr (and c:pr (or d:pr e:pr))))');
  });

  it('parses not (...) as a unary group, binding tighter than and/or', () => {
    assert.equal(shape('not (a pr)'), '(not a:pr)');
    assert.equal(shape('not (a pr or b pr) and c pr'), '(and (not (or a:pr b:pr)) c:pr)');
    assert.equal(shape('a pr or NOT (b pr)'), '(or a:pr (not b:pr))');
    assert.equal(shape('not (not (a pr))'), '(not (not a:pr))');
    assert.equal(shape('not(a pr)'), '(not a:pr)');
  });

  it('treats keywords as attribute names where an attribute is expected', () => {
    assert.equal(shape('not pr'), 'not:pr');
    assert.equal(shape('and pr or or pr'), '(or and:pr or:pr)');
    assert.equal(shape('pr pr'), 'pr:pr');
  });

  it('accepts tabs and newlines as whitespace', () => {
    assert.equal(shape('a pr\tand\n b pr'), '(and a:pr b:pr)');
  });
});

describe('parseFilter: value paths', () => {
  it('parses emails[type eq "work" and value co "@x"]', () => {
    assert.equal(shape('emails[type eq "work" and value co "@x"]'), 'emails[(and type:eq:"work" value:co:"@x")]');
  });

  it('parses or, not and parentheses inside brackets', () => {
    assert.equal(shape('emails[type eq "work" or not (primary eq false)]'), 'emails[(or type:eq:"work" (not primary:eq:false))]');
    assert.equal(shape('emails[type eq "work" or (primary eq true and value co "@x")]'), 'emails[(or type:eq:"work" (and primary:eq:true value:co:"@x"))]');
  });

  it('combines value paths with other expressions', () => {
    assert.equal(
      shape('emails[type eq "work"] or ims[type eq "xmpp"] and userType eq "E"'),
      '(or emails[type:eq:"work"] (and ims[type:eq:"xmpp"] usertype:eq:"E"))',
    );
  });

  it('reads a trailing sub-attribute comparison as part of the value filter', () => {
    assert.equal(shape('emails[type eq "work"].value ew "@x.org"'), 'emails[(and type:eq:"work" value:ew:"@x.org")]');
    assert.equal(shape('emails[type eq "a" or type eq "b"].display pr'), 'emails[(and (or type:eq:"a" type:eq:"b") display:pr)]');
  });

  it('accepts a URN-qualified value path', () => {
    const ast = parseFilter(`${CORE_USER}:emails[type eq "work"]`);
    assert.equal(ast.kind, 'valuePath');
    assert.equal(ast.kind === 'valuePath' ? ast.attrPath.uri : undefined, CORE_USER);
  });
});

describe('parseFilter: attribute paths', () => {
  it('splits URN-qualified names at the last colon', () => {
    const ast = parseFilter(`${ENTERPRISE}:department eq "D"`);
    assert.deepEqual(ast, {
      kind: 'compare',
      op: 'eq',
      value: 'D',
      attrPath: { uri: ENTERPRISE, attribute: 'department', subAttribute: undefined, path: `${ENTERPRISE.toLowerCase()}:department` },
    });
  });

  it('handles URN-qualified sub-attributes and core schema URNs', () => {
    assert.equal(shape(`${ENTERPRISE}:manager.value eq "m1"`), `${ENTERPRISE.toLowerCase()}:manager.value:eq:"m1"`);
    assert.equal(shape(`${CORE_USER}:userName sw "J"`), `${CORE_USER.toLowerCase()}:username:sw:"J"`);
    assert.equal(shape(`${CORE_USER}:name.givenName pr`), `${CORE_USER.toLowerCase()}:name.givenname:pr`);
  });

  it('keeps the original spelling and exposes a lower-case path', () => {
    const ast = parseFilter('Name.GivenName Eq "Bob"');
    assert.equal(ast.kind, 'compare');
    if (ast.kind !== 'compare') return;
    assert.equal(ast.attrPath.attribute, 'Name');
    assert.equal(ast.attrPath.subAttribute, 'GivenName');
    assert.equal(ast.attrPath.path, 'name.givenname');
    assert.equal(ast.op, 'eq');
  });

  it('accepts $ref, dashes, underscores and digits in names', () => {
    assert.equal(shape('members.$ref pr and x-y_z9 pr'), '(and members.$ref:pr x-y_z9:pr)');
  });
});

describe('parseFilter: operators and values', () => {
  it('accepts every operator in any case', () => {
    for (const op of ['eq', 'NE', 'Co', 'sW', 'EW', 'gt', 'GE', 'lt', 'Le']) {
      const ast = parseFilter(`title ${op} "x"`);
      assert.equal(ast.kind === 'compare' ? ast.op : undefined, op.toLowerCase());
    }
    assert.equal(shape('title PR AND userType Eq "E" OR x pr'), '(or (and title:pr usertype:eq:"E") x:pr)');
  });

  it('decodes JSON string escapes', () => {
    const ast = parseFilter(String.raw`displayName eq "a\"b\\c\/d\u00e9\n\t"`);
    assert.equal(ast.kind === 'compare' ? ast.value : undefined, 'a"b\\c/dé\n\t');
  });

  it('parses JSON numbers, true, false and null', () => {
    const values = ['0', '-1.5', '2e2', '1E-2', 'true', 'false', 'null'].map((v) => {
      const ast = parseFilter(`x eq ${v}`);
      return ast.kind === 'compare' ? ast.value : undefined;
    });
    assert.deepEqual(values, [0, -1.5, 200, 0.01, true, false, null]);
  });

  it('keeps strings that look like keywords or numbers as strings', () => {
    assert.equal(shape('x eq "true" and y eq "42"'), '(and x:eq:"true" y:eq:"42")');
  });
});

describe('parseFilter: lenient options', () => {
  const lenient = { allowUnquotedStrings: true, allowNotWithoutParentheses: true };

  it("parses the Microsoft reference collection's unquoted filters", () => {
    assert.equal(sexpr(parseFilter('userName sw O', lenient)), 'username:sw:"O"');
    assert.equal(sexpr(parseFilter('meta.Created gt 2015-10-10T14:38:21.8617979-07:00', lenient)), 'meta.created:gt:"2015-10-10T14:38:21.8617979-07:00"');
    assert.equal(
      sexpr(parseFilter('name.FamilyName eq Employee and (emails.Value co example.com or emails.Value co example.org)', lenient)),
      '(and name.familyname:eq:"Employee" (or emails.value:co:"example.com" emails.value:co:"example.org"))',
    );
    assert.equal(sexpr(parseFilter('members[value eq 123abc]', lenient)), 'members[value:eq:"123abc"]');
  });

  it('still reads literals as literals', () => {
    assert.equal(sexpr(parseFilter('a eq true and b eq 12 and c eq null', lenient)), '(and (and a:eq:true b:eq:12) c:eq:null)');
  });

  it('binds a bare not to the next expression only', () => {
    assert.equal(sexpr(parseFilter('not a pr and b pr', lenient)), '(and (not a:pr) b:pr)');
    assert.equal(sexpr(parseFilter('not not eq "x"', lenient)), '(not not:eq:"x")');
    assert.equal(sexpr(parseFilter('not pr', lenient)), 'not:pr');
  });
});

describe('parsePatchPath', () => {
  const path = (text: string): string => formatPatchPath(parsePatchPath(text));

  it('parses attrPath, attrPath[filter] and attrPath[filter].subAttr', () => {
    assert.deepEqual(parsePatchPath('emails[type eq "work"].value'), {
      attrPath: { uri: undefined, attribute: 'emails', subAttribute: undefined, path: 'emails' },
      filter: parseFilter('type eq "work"'),
      subAttribute: 'value',
    });
    assert.equal(path('name.givenName'), 'name.givenName');
    assert.equal(path('members[value eq "2819c223"]'), 'members[value eq "2819c223"]');
    assert.equal(path('addresses[type eq "work" and primary eq true].streetAddress'), 'addresses[type eq "work" and primary eq true].streetAddress');
  });

  it('parses URN-prefixed paths', () => {
    const manager = parsePatchPath(`${ENTERPRISE}:manager`);
    assert.equal(manager.attrPath.uri, ENTERPRISE);
    assert.equal(manager.attrPath.attribute, 'manager');
    assert.equal(path(`${ENTERPRISE}:manager.value`), `${ENTERPRISE}:manager.value`);
    assert.equal(path(`${CORE_USER}:emails[type eq "work"].value`), `${CORE_USER}:emails[type eq "work"].value`);
    assert.equal(parsePatchPath(ENTERPRISE).attrPath.attribute, 'User');
  });
});

describe('formatFilter', () => {
  it('round-trips, adding parentheses only where the tree needs them', () => {
    for (const text of [
      'a pr or b pr and c pr',
      '(a pr or b pr) and c pr',
      'a pr and (b pr and c pr)',
      'a pr or (b pr or c pr)',
      'not (a pr) and emails[type eq "work" or value co "x"]',
      `${ENTERPRISE}:department eq "D\\"q"`,
    ]) {
      const ast = parseFilter(text);
      assert.equal(formatFilter(ast), text);
      assert.deepEqual(parseFilter(formatFilter(ast)), ast);
    }
  });
});
