import { AsyncLocalStorage } from 'node:async_hooks';
import type { Brand } from './brand-lookup.js';

/**
 * The brand of the page a request renders (docs/branding.md, "Where a brand shows"). The page frame is shared by
 * every view of the sign-in; the brand is known once the request's interaction is, so the login UI opens a slot per
 * request and fills it, and the frame reads it, instead of threading it through each view.
 */
const slot = new AsyncLocalStorage<{ brand?: Brand }>();

export function withPageBrand<T>(fn: () => T): T {
  return slot.run({}, fn);
}

export function setPageBrand(brand: Brand): void {
  const current = slot.getStore();
  if (current) current.brand = brand;
}

export function pageBrand(): Brand | undefined {
  return slot.getStore()?.brand;
}
