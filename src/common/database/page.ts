/** A page of a list (docs/product-rules.md, "API": `limit` ≤ 1000, `offset`). */
export interface Page {
  limit: number;
  offset: number;
}

export interface Paged<T> {
  items: T[];
  total: number;
}

export const DEFAULT_PAGE: Page = { limit: 100, offset: 0 };
