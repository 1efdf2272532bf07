import { parsePhoneNumberFromString } from 'libphonenumber-js';
import { DomainError } from '../common/errors/domain-error.js';

/**
 * Stores phone numbers E.164-like (docs/product-rules.md, "Domain"): an international number becomes E.164; a national one
 * (no country code, so no way to know its country) keeps its digits without spaces, dashes, dots or
 * brackets, and a leading `+` is always kept.
 */
export function normalizePhone(value: string, field = 'phone'): string {
  const international = value.trim().startsWith('+') ? parsePhoneNumberFromString(value) : undefined;
  if (international?.isPossible()) return international.number;
  const compact = value.replace(/[\s\-.()/]/g, '');
  if (!/^\+?\d{3,20}$/.test(compact)) {
    throw DomainError.invalid(`${field} is not a phone number`, [{ field, message: `"${value}" is not a phone number` }]);
  }
  return compact;
}
