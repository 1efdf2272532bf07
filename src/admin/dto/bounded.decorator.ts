import { ValidateBy } from 'class-validator';
import { tooLong } from '../../common/text/column-bounds.js';
import { STRING_BOUNDS } from '../../users/rules/string-bounds.js';
import type { StringBound } from '../../users/rules/string-bounds.js';

/** The class-validator name of the constraint; test/admin/admin-string-bounds.test.ts walks the DTOs for it. */
export const BOUNDED = 'bounded';

/**
 * A string field's length bound from the one table (users/rules/string-bounds.ts), counted in characters as
 * MariaDB's VARCHAR counts them. class-validator's MaxLength is not used: it leaves U+FE0E/U+FE0F uncounted, so
 * a value it accepts could still be too long for the column. `each` bounds every string of an array.
 */
export function Bounded(bound: StringBound | number, { each = false } = {}): PropertyDecorator {
  const max = typeof bound === 'number' ? bound : STRING_BOUNDS[bound];
  return ValidateBy(
    {
      name: BOUNDED,
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !tooLong(value, max),
        defaultMessage: () => `$property must be at most ${max} characters`,
      },
    },
    { each },
  );
}
