/**
 * Parses the ISO 8601 / xsd:dateTime forms SCIM uses (RFC 7643 §2.3.5) into epoch milliseconds,
 * so that `meta.lastModified gt "2011-05-13T04:42:34Z"` compares instants, not text.
 * Partial dates (`2021-09`, `2021-09-08`) mean the start of that period in UTC; a time without
 * zone is read as UTC; fractional seconds beyond milliseconds are truncated.
 */
const DATE_TIME = /^(\d{4})-(\d{2})(?:-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|z|[+-]\d{2}:?\d{2})?)?)?$/;

export function parseDateTime(text: string): number | undefined {
  const m = DATE_TIME.exec(text);
  if (m === null) return undefined;
  const field = (text: string | undefined, fallback: number): number => (text === undefined ? fallback : Number(text));
  const year = field(m[1], 0);
  const month = field(m[2], 1);
  const day = field(m[3], 1);
  const hour = field(m[4], 0);
  const minute = field(m[5], 0);
  const second = field(m[6], 0);
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59), millis);
  return utc - offsetMinutes(m[8]) * 60_000;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function offsetMinutes(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  return sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5)));
}
