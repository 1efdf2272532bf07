/**
 * SQL with named parameters (`:name`) as the drivers' positional `?`, values in order of appearance.
 * Compiled SCIM filters name their values; neither driver binds names.
 */
export function positional(sql: string, named: Readonly<Record<string, unknown>>): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const text = sql.replace(/:([A-Za-z]\w*)/g, (_, name: string) => {
    if (!Object.hasOwn(named, name)) throw new Error(`no value for SQL parameter :${name}`);
    values.push(named[name]);
    return '?';
  });
  return { sql: text, values };
}
