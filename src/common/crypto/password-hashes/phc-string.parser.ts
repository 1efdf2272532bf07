import { MalformedPasswordHashError } from './password-hash.errors.js';
import type { PasswordHashFormat } from './password-hash.format.js';

/**
 * One PHC string, `$<id>[$v=<version>][$<param>=<value>(,<param>=<value>)*][$<salt>[$<hash>]]`
 * (github.com/P-H-C/phc-string-format/blob/master/phc-sf-spec.md). Salt and hash stay encoded:
 * each scheme decodes them.
 */
interface PhcString {
  readonly id: string;
  readonly version: number | undefined;
  readonly params: ReadonlyMap<string, string>;
  readonly salt: string;
  readonly hash: string;
}

// The spec's names are lower-case; upper case is still read as a name so that e.g. `N=` gets a precise error.
const PARAM_NAME = /^[A-Za-z0-9-]{1,32}$/;
const PARAM_VALUE = /^[A-Za-z0-9/+.-]{1,128}$/;

/**
 * Splits a PHC string, requiring the salt and the hash (a hash without them cannot be verified).
 * Parameter order is not enforced: node-argon2 writes `m,p,t` where the spec orders `m,t,p`.
 */
export function parsePhcString(text: string, format: PasswordHashFormat): PhcString {
  const fail = (reason: string): never => {
    throw new MalformedPasswordHashError(format, reason);
  };
  if (!text.startsWith('$')) fail("expected a PHC string starting with '$'");
  const fields = text.slice(1).split('$');
  const id = fields[0]!;
  let next = 1;

  let version: number | undefined;
  if (fields[next]?.startsWith('v=')) {
    const parsed = parseDecimalInteger(fields[next]!.slice(2));
    version = parsed ?? fail(`version '${fields[next]!.slice(0, 12)}' is not a decimal number`);
    next++;
  }

  const params = new Map<string, string>();
  if (fields[next]?.includes('=')) {
    for (const pair of fields[next]!.split(',')) {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      const value = eq < 0 ? '' : pair.slice(eq + 1);
      if (!PARAM_NAME.test(name)) fail('parameters must be name=value pairs separated by commas');
      if (!PARAM_VALUE.test(value)) fail(`parameter '${name}' has an empty or invalid value`);
      if (params.has(name)) fail(`parameter '${name}' appears twice`);
      params.set(name, value);
    }
    next++;
  }

  const salt = fields[next];
  const hash = fields[next + 1];
  if (salt === undefined || salt === '') fail('missing salt');
  if (hash === undefined || hash === '') fail('missing hash');
  if (fields.length > next + 2) fail("unexpected extra '$'-separated field");
  return { id, version, params, salt: salt!, hash: hash! };
}

/** A decimal integer without sign or leading zeros (PHC and crypt(3) never write them), else null. */
export function parseDecimalInteger(text: string): number | null {
  if (!/^(?:0|[1-9][0-9]{0,14})$/.test(text)) return null;
  return Number(text);
}

/** Reads a required integer parameter within [min, max] (the format's own validity range). */
export function readIntegerParam(phc: PhcString, name: string, format: PasswordHashFormat, min: number, max: number): number {
  const raw = phc.params.get(name);
  if (raw === undefined) throw new MalformedPasswordHashError(format, `missing parameter '${name}'`);
  const value = parseDecimalInteger(raw);
  if (value === null || value < min || value > max) {
    throw new MalformedPasswordHashError(format, `parameter '${name}' must be an integer from ${min} to ${max}`);
  }
  return value;
}

/** Rejects parameters the scheme does not define, so a typo cannot silently change the cost. */
export function rejectUnknownParams(phc: PhcString, known: readonly string[], format: PasswordHashFormat): void {
  for (const name of phc.params.keys()) {
    if (!known.includes(name)) throw new MalformedPasswordHashError(format, `unknown parameter '${name}'`);
  }
}

/** Decodes a salt or hash field and checks its decoded length. */
export function decodeField(
  text: string,
  decode: (text: string) => Buffer | null,
  field: 'salt' | 'hash',
  format: PasswordHashFormat,
  bytes: { readonly min: number; readonly max: number; readonly encoding: string },
): Buffer {
  const decoded = decode(text);
  if (decoded === null) throw new MalformedPasswordHashError(format, `${field} is not valid ${bytes.encoding}`);
  if (decoded.length < bytes.min || decoded.length > bytes.max) {
    throw new MalformedPasswordHashError(format, `${field} must be ${bytes.min} to ${bytes.max} bytes, got ${decoded.length}`);
  }
  return decoded;
}
