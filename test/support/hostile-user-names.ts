/**
 * Names an upstream identity provider was seen to send as `preferred_username`, each refused by the one user name
 * rule (docs/product-rules.md, "Domain"): invisible, control, or changed by Unicode NFKC (a full-width look-alike).
 */
export const HOSTILE_NAMES: Record<string, (base: string) => string> = {
  'a zero-width space': (base) => `${base}\u200bx`,
  'full-width letters': (base) => `ｕｓｅｒ${base}`,
  'a NUL': (base) => `${base}\u0000x`,
  'an ESC sequence': (base) => `${base}\u001b[31m`,
  'a compatibility ligature': (base) => `${base}ﬁ`,
};
