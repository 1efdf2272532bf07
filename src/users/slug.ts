/** `slug(name)` of docs/product-rules.md, "Running it": lower case, every other character → `-` (runs collapsed, ends trimmed). */
export function slug(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s || 'org';
}
