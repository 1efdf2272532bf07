/**
 * SQL with named parameters (`:name`) as the drivers' positional `?`, values in order of appearance.
 * Compiled SCIM filters name their values; neither driver binds names.
 */
export function positional(sql: string, named: Readonly<Record<string, unknown>>): { sql: string; values: unknown[] } {
  const form = positionalForm(sql);
  const values = form.names.map((name) => {
    if (!Object.hasOwn(named, name)) throw new Error(`no value for SQL parameter :${name}`);
    return named[name];
  });
  return { sql: form.sql, values };
}

/**
 * Each statement's positional text and its parameters' names, rewritten once: a filter's values are bound,
 * so the texts are a few shapes, each seen again and again on the SCIM list paths (BENCHMARKS.md, "Issue 40,
 * SCIM lookup against its floor"); a bound keeps a stream of odd shapes small.
 */
const positionalForms = new Map<string, { sql: string; names: string[] }>();

function positionalForm(sql: string): { sql: string; names: string[] } {
  let form = positionalForms.get(sql);
  if (!form) {
    const names: string[] = [];
    form = { sql: sql.replace(/:([A-Za-z]\w*)/g, (_, name: string) => (names.push(name), '?')), names };
    if (positionalForms.size >= 200) positionalForms.clear();
    positionalForms.set(sql, form);
  }
  return form;
}
