import { isCompareOperator, makeAttrPath, type AttrPath, type CompValue, type FilterNode, type PatchPath } from './scim-filter.ast.js';
import { isValidAttrName, parseAttrPathText } from './scim-filter.attr-path.js';
import { ScimFilterError, type ScimFilterErrorType } from './scim-filter.errors.js';
import { describeToken, tokenize, type Token } from './scim-filter.tokenizer.js';

/** Filters (and PATCH paths) longer than this many characters are rejected before parsing. */
export const MAX_FILTER_LENGTH = 1000;

/** Opt-in departures from the RFC 7644 grammar. Both default to `false` (strict RFC). */
export interface ParseFilterOptions {
  /**
   * Accept unquoted words as string values (`userName sw O`, `meta.created gt 2015-10-10T14:38:21Z`,
   * `members[value eq 123abc]`). Microsoft's SCIM reference Postman collection sends such filters.
   */
  readonly allowUnquotedStrings?: boolean;
  /** Accept `not` without parentheses, binding to the next single expression (`not userName eq "x"`). */
  readonly allowNotWithoutParentheses?: boolean;
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const OPERATOR_LIST = 'eq, ne, co, sw, ew, gt, ge, lt, le or pr';

/** Parses a `filter` query parameter (RFC 7644 §3.4.2.2) into an AST. Throws `ScimFilterError`. */
export function parseFilter(input: string, options: ParseFilterOptions = {}): FilterNode {
  const parser = new FilterParser(input, options, 'invalidFilter');
  const node = parser.parseOr(false);
  parser.expectEnd("'and', 'or' or end of filter");
  return node;
}

/**
 * Parses a PATCH `path` (RFC 7644 §3.5.2, Figure 7): `attrPath`, `attrPath[valFilter]` or
 * `attrPath[valFilter].subAttr`, optionally URN-qualified. Errors carry `scimType: 'invalidPath'`.
 */
export function parsePatchPath(input: string, options: ParseFilterOptions = {}): PatchPath {
  const parser = new FilterParser(input, options, 'invalidPath');
  const result = parser.parsePatchPath();
  parser.expectEnd("'[' or end of path");
  return result;
}

class FilterParser {
  private readonly tokens: Token[];
  private index = 0;
  private readonly what: string;

  constructor(
    input: string,
    private readonly options: ParseFilterOptions,
    private readonly scimType: ScimFilterErrorType,
  ) {
    this.what = scimType === 'invalidPath' ? 'path' : 'filter';
    if (input.length > MAX_FILTER_LENGTH) {
      throw new ScimFilterError(`The ${this.what} is ${input.length} characters long; at most ${MAX_FILTER_LENGTH} are allowed`, MAX_FILTER_LENGTH, scimType);
    }
    this.tokens = tokenize(input, scimType);
    const first = this.peek();
    if (first.kind === 'eof') throw new ScimFilterError(`The ${this.what} is empty`, 0, scimType);
  }

  /** `orExpr = andExpr *("or" andExpr)`: "and" binds tighter than "or" (RFC 7644 §3.4.2.2, Table 4). */
  parseOr(inValuePath: boolean): FilterNode {
    let left = this.parseAnd(inValuePath);
    while (this.isKeyword(this.peek(), 'or')) {
      this.next();
      left = { kind: 'or', left, right: this.parseAnd(inValuePath) };
    }
    return left;
  }

  private parseAnd(inValuePath: boolean): FilterNode {
    let left = this.parseFactor(inValuePath);
    while (this.isKeyword(this.peek(), 'and')) {
      this.next();
      left = { kind: 'and', left, right: this.parseFactor(inValuePath) };
    }
    return left;
  }

  /** `factor = "(" filter ")" / "not" "(" filter ")" / attrExp / valuePath`. */
  private parseFactor(inValuePath: boolean): FilterNode {
    const token = this.peek();
    if (token.kind === '(') {
      this.next();
      return this.parseGroup(inValuePath);
    }
    if (token.kind !== 'word') {
      throw this.error(token, "an attribute name, 'not' or '('");
    }
    if (this.isKeyword(token, 'not')) {
      if (this.peek(1).kind === '(') {
        this.next();
        this.next();
        return { kind: 'not', filter: this.parseGroup(inValuePath) };
      }
      if (this.options.allowNotWithoutParentheses === true && !this.looksLikeAttributeNamedNot()) {
        this.next();
        return { kind: 'not', filter: this.parseFactor(inValuePath) };
      }
    }
    return this.parseAttrExp(inValuePath);
  }

  private parseGroup(inValuePath: boolean): FilterNode {
    const inner = this.parseOr(inValuePath);
    this.expect(')', "'and', 'or' or ')'");
    return inner;
  }

  /** `attrExp = attrPath SP "pr" / attrPath SP compareOp SP compValue`, or a `valuePath`. */
  private parseAttrExp(inValuePath: boolean): FilterNode {
    const nameToken = this.next();
    const attrPath = this.attrPathFrom(nameToken);
    if (this.peek().kind !== '[') return this.parseOperatorTail(attrPath, nameToken);

    if (inValuePath) {
      throw new ScimFilterError(
        `Invalid ${this.what} at position ${this.peek().position}: value filters cannot be nested inside '[...]'`,
        this.peek().position,
        this.scimType,
      );
    }
    this.next();
    const filter = this.parseOr(true);
    this.expect(']', "'and', 'or' or ']'");
    const after = this.peek();
    if (after.kind === 'word' && after.text.startsWith('.')) {
      // Extension (also used by scimmy and PATCH paths): `emails[type eq "work"].value co "x"`
      // is read as `emails[type eq "work" and value co "x"]`.
      this.next();
      const sub = this.subAttributeFrom(after);
      const tail = this.parseOperatorTail(makeAttrPath(undefined, sub, undefined), after);
      return { kind: 'valuePath', attrPath, filter: { kind: 'and', left: filter, right: tail } };
    }
    return { kind: 'valuePath', attrPath, filter };
  }

  private parseOperatorTail(attrPath: AttrPath, nameToken: Token): FilterNode {
    const opToken = this.next();
    const op = opToken.kind === 'word' ? opToken.text.toLowerCase() : '';
    if (op === 'pr') return { kind: 'present', attrPath };
    if (!isCompareOperator(op)) {
      const hint = this.isKeyword(nameToken, 'not') ? " ('not' must be followed by '(')" : '';
      throw this.error(opToken, `an operator (${OPERATOR_LIST}) after '${nameToken.text}'${hint}`);
    }
    const valueToken = this.next();
    const value = this.compValueFrom(valueToken);
    const invalid = this.operatorValueProblem(op, value);
    if (invalid !== undefined) {
      throw new ScimFilterError(`Invalid ${this.what} at position ${valueToken.position}: ${invalid}`, valueToken.position, this.scimType);
    }
    return { kind: 'compare', attrPath, op, value };
  }

  /** `compValue = false / null / true / number / string` with JSON (RFC 7159) spelling. */
  private compValueFrom(token: Token): CompValue {
    if (token.kind === 'string') return token.value;
    if (token.kind === 'word') {
      if (token.text === 'true') return true;
      if (token.text === 'false') return false;
      if (token.text === 'null') return null;
      if (JSON_NUMBER.test(token.text)) {
        const n = Number(token.text);
        if (Number.isFinite(n)) return n;
      }
      if (this.options.allowUnquotedStrings === true) return token.text;
    }
    const hint = token.kind === 'word' ? ' (strings must be in double quotes)' : '';
    throw this.error(token, `a comparison value (a "quoted string", a number, true, false or null)${hint}`);
  }

  /**
   * RFC 7644 §3.4.2.2: "co", "sw" and "ew" compare strings; for "gt"/"ge"/"lt"/"le",
   * "Boolean and Binary attributes SHALL cause a failed response … invalidFilter".
   */
  private operatorValueProblem(op: string, value: CompValue): string | undefined {
    if ((op === 'co' || op === 'sw' || op === 'ew') && typeof value !== 'string') {
      return `operator '${op}' needs a string value, not ${JSON.stringify(value)}`;
    }
    if ((op === 'gt' || op === 'ge' || op === 'lt' || op === 'le') && (value === null || typeof value === 'boolean')) {
      return `operator '${op}' needs a string, date or number value, not ${JSON.stringify(value)}`;
    }
    return undefined;
  }

  /** PATCH path: `attrPath [ "[" valFilter "]" [ "." ATTRNAME ] ]`. */
  parsePatchPath(): PatchPath {
    const nameToken = this.next();
    const attrPath = this.attrPathFrom(nameToken);
    if (this.peek().kind !== '[') return { attrPath, filter: undefined, subAttribute: undefined };
    this.next();
    const filter = this.parseOr(true);
    this.expect(']', "'and', 'or' or ']'");
    const after = this.peek();
    if (after.kind === 'word' && after.text.startsWith('.')) {
      this.next();
      return { attrPath, filter, subAttribute: this.subAttributeFrom(after) };
    }
    return { attrPath, filter, subAttribute: undefined };
  }

  private attrPathFrom(token: Token): AttrPath {
    if (token.kind !== 'word') throw this.error(token, 'an attribute name');
    const parsed = parseAttrPathText(token.text);
    if (!parsed.ok) {
      throw new ScimFilterError(`Invalid ${this.what} at position ${token.position}: ${parsed.reason}`, token.position, this.scimType);
    }
    return parsed.attrPath;
  }

  /** The `.subAttr` word that follows `]`. */
  private subAttributeFrom(token: Token): string {
    const name = token.text.slice(1);
    if (!isValidAttrName(name)) {
      throw this.error(token, "a sub-attribute name after '].'");
    }
    return name;
  }

  /**
   * With `allowNotWithoutParentheses`, `not` is still an attribute name when it is followed by
   * `pr` (ending the expression) or by an operator and a quoted/literal value: `not eq "x"`.
   */
  private looksLikeAttributeNamedNot(): boolean {
    const op = this.peek(1);
    const after = this.peek(2);
    if (op.kind !== 'word') return false;
    const opText = op.text.toLowerCase();
    if (opText === 'pr') {
      return after.kind !== 'word' || this.isKeyword(after, 'and') || this.isKeyword(after, 'or');
    }
    if (!isCompareOperator(opText)) return false;
    return after.kind === 'string' || (after.kind === 'word' && /^(true|false|null|-?\d[\d.eE+-]*)$/.test(after.text));
  }

  expectEnd(expected: string): void {
    const token = this.peek();
    if (token.kind !== 'eof') throw this.error(token, expected);
  }

  private expect(kind: Token['kind'], expected: string): void {
    const token = this.next();
    if (token.kind !== kind) throw this.error(token, expected);
  }

  private isKeyword(token: Token, keyword: string): boolean {
    return token.kind === 'word' && token.text.toLowerCase() === keyword;
  }

  private peek(offset = 0): Token {
    const token = this.tokens[Math.min(this.index + offset, this.tokens.length - 1)];
    if (token === undefined) throw new Error('tokenizer produced no tokens');
    return token;
  }

  private next(): Token {
    const token = this.peek();
    if (this.index < this.tokens.length - 1) this.index++;
    return token;
  }

  private error(token: Token, expected: string): ScimFilterError {
    return new ScimFilterError(
      `Invalid ${this.what} at position ${token.position}: expected ${expected} but found ${describeToken(token)}`,
      token.position,
      this.scimType,
    );
  }
}
