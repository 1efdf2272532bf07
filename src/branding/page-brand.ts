import { AsyncLocalStorage } from 'node:async_hooks';
import type { Brand } from './brand-lookup.js';

/**
 * The brand of the page a request renders (docs/branding.md, "Where a brand shows"). The page frame is shared by
 * every view of the sign-in; the brand is known once the request's interaction is, so the login UI opens a slot per
 * request and fills it, and the frame reads it, instead of threading it through each view.
 *
 * An enabled storage costs every promise of the process, in a sign-in or not: once the last request in a slot has
 * ended, the storage is disabled until the next one opens a slot (as the logger's, src/common/http/logging.ts).
 */
const slot = new AsyncLocalStorage<{ brand?: Brand }>();
let open = 0;

export function withPageBrand<T>(fn: () => T): T {
  open++;
  let result: T;
  try {
    result = slot.run({}, fn);
  } catch (error) {
    close();
    throw error;
  }
  if (result instanceof Promise) return result.finally(close) as T;
  close();
  return result;
}

function close(): void {
  if (--open === 0) slot.disable();
}

export function setPageBrand(brand: Brand): void {
  const current = slot.getStore();
  if (current) current.brand = brand;
}

export function pageBrand(): Brand | undefined {
  return slot.getStore()?.brand;
}
