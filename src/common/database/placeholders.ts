/** `?, ?, ?` for a list of bound values: SQL text never carries the values themselves. */
export function placeholders(count: number): string {
  return new Array(count).fill('?').join(', ');
}
