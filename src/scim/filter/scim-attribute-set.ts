/**
 * A set of normalised attribute paths such as `id`, `name.givenname`, `emails.primary`,
 * `urn:ietf:params:scim:schemas:extension:enterprise:2.0:user:manager`. Matching ignores case.
 * An entry `*.sub` matches the sub-attribute `sub` of any attribute (e.g. `*.primary`).
 */
export class AttributePathSet {
  private readonly paths: ReadonlySet<string>;

  constructor(paths: Iterable<string> = []) {
    this.paths = new Set([...paths].map((p) => p.toLowerCase()));
  }

  has(path: string): boolean {
    const lower = path.toLowerCase();
    if (this.paths.has(lower)) return true;
    const dot = lower.lastIndexOf('.');
    const colon = lower.lastIndexOf(':');
    return dot > colon && this.paths.has(`*${lower.slice(dot)}`);
  }
}
