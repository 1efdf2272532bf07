import { getMetadataArgsStorage } from 'typeorm';

/**
 * The length of an entity's varchar column, read from its `@Column` declaration: bounds checked at the edge
 * come from here, so validation and the schema cannot drift apart (docs/product-rules.md, "API": every string field has a
 * length bound checked before the database). MariaDB counts a VARCHAR's length in characters (code points)
 * and refuses more in strict mode ("Data too long", a 500); SQLite stores any length. Throws at load time
 * for a property that is not a varchar column with a length, so a renamed column cannot leave a bound behind.
 */
export function columnLength(entity: Function, property: string): number {
  const column = getMetadataArgsStorage().columns.find((c) => c.target === entity && c.propertyName === property);
  const length = Number(column?.options.length);
  if (!column || column.options.type !== 'varchar' || !Number.isInteger(length) || length <= 0) {
    throw new Error(`${entity.name}.${property} is not a varchar column with a length`);
  }
  return length;
}

/** The length of a text as MariaDB's VARCHAR counts it: code points (a surrogate pair is one character). */
export function characterCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

export function tooLong(text: string, bound: number): boolean {
  // A text of at most `bound` UTF-16 units has at most `bound` code points: the count is needed only above it.
  return text.length > bound && characterCount(text) > bound;
}
