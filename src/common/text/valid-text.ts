/**
 * Text every surface refuses: a lone UTF-16 surrogate, which UTF-8 cannot encode (SQLite
 * keeps it as sent, MariaDB's utf8mb4 replaces or refuses it), and U+0000, which the two databases store
 * differently and C strings cut. Both are refused with 400 before anything is stored, so that both databases
 * hold the same text.
 */
const INVALID = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|\0/;

export function isValidText(text: string): boolean {
  return !INVALID.test(text);
}

/**
 * Where a parsed JSON value holds invalid text, in a key or a string value: its path (`emails[0].value`),
 * or undefined. One walk over the value, iterative (bodies may nest up to MAX_JSON_DEPTH).
 */
export function invalidTextPath(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (!isValidText(current)) return path || '(the body)';
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push([current[i], `${path}[${i}]`]);
    } else if (current !== null && typeof current === 'object') {
      for (const [key, child] of Object.entries(current)) {
        const childPath = path ? `${path}.${key}` : key;
        if (!isValidText(key)) return `${path ? `${path}.` : ''}(a key)`;
        stack.push([child, childPath]);
      }
    }
  }
  return undefined;
}

/** The 400 message naming where the invalid text is. */
export function invalidTextMessage(path: string): string {
  return `${path}: text must be valid Unicode without NUL characters (a lone UTF-16 surrogate or U+0000 was sent)`;
}
