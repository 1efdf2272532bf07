import { domainToASCII, domainToUnicode } from 'node:url';
import { DomainError } from '../../common/errors/domain-error.js';

/**
 * A host name (RFC 1035 §2.3.1 labels of at most 63 characters, 253 in all, RFC 1123 §2.1 digits first allowed),
 * at least two labels, the last not numeric (no IP address).
 */
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A domain as stored and compared: lower case; an internationalised name in its ASCII form (RFC 5890 A-labels,
 * `xn--…`), so one domain has one spelling; no trailing dot (the root is implied). A 400 naming `field`.
 */
export function domainName(value: string, field: string): string {
  if (value.endsWith('.')) throw DomainError.invalidField(field, `${field}: "${value}" ends with a dot; give the domain without it (such as example.com)`);
  const lower = value.toLowerCase();
  // Anything else goes through the WHATWG host parser (UTS #46: A-labels), which also reads a URL's host out of
  // `a.example/path`: only a name it gives back unchanged as Unicode is a domain name as typed.
  const ascii = /^[a-z0-9.-]*$/.test(lower) ? lower : domainToASCII(lower);
  if (!HOST_NAME.test(ascii) || (ascii !== lower && domainToUnicode(ascii) !== lower.normalize('NFC')))
    throw DomainError.invalidField(field, `${field}: "${value}" is not a domain name (such as example.com)`);
  return ascii;
}
