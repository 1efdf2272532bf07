import { Matches } from 'class-validator';

/** A string with at least one character that is not white space (names shown to people). */
export function IsNotBlank(): PropertyDecorator {
  return Matches(/\S/, { message: '$property must not be blank' });
}
