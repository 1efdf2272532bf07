import { timingSafeEqual } from 'node:crypto';

/**
 * Constant-time equality of two checksums. Lengths are not secret (they follow from the format),
 * so unequal lengths return false at once; equal lengths are compared with crypto.timingSafeEqual.
 */
export function constantTimeEqual(a: Buffer | string, b: Buffer | string): boolean {
  const left = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const right = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return left.length === right.length && timingSafeEqual(left, right);
}
