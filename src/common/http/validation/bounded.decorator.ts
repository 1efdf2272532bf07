import { ValidateBy } from 'class-validator';
import { tooLong } from '../../text/column-bounds.js';

/** The class-validator name of the constraint; test/admin/admin-string-bounds.test.ts walks the DTOs for it. */
export const BOUNDED = 'bounded';

/**
 * A string field's length bound (for a stored value, its entry in the users domain's one table,
 * src/users/rules/string-bounds.ts), counted in characters as MariaDB's VARCHAR counts them. class-validator's
 * MaxLength is not used: it leaves U+FE0E/U+FE0F uncounted, so a value it accepts could still be too long for the
 * column. `each` bounds every string of an array.
 */
export function Bounded(max: number, { each = false } = {}): PropertyDecorator {
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
