import type { Brand } from './brand-lookup.js';

/**
 * The brand of the page being rendered (docs/branding.md, "Where a brand shows"). The page frame is shared by every
 * view of the sign-in; a request's brand is known once its interaction is, and a page is rendered synchronously after
 * that, so the brand is set for the span of that one synchronous call (`renderedWith`) and the frame reads it,
 * instead of threading it through each view. No storage follows the request's promises: an AsyncLocalStorage costs
 * every promise of the process while it is enabled, which was about a twentieth of a sign-in page's CPU
 * (BENCHMARKS.md, "The look, before and after").
 */
let current: Brand | undefined;

export function renderedWith<T>(brand: Brand | undefined, render: () => T): T {
  const outer = current;
  current = brand;
  try {
    return render();
  } finally {
    current = outer;
  }
}

export function pageBrand(): Brand | undefined {
  return current;
}
