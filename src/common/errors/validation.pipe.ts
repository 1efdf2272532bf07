import { ValidationPipe } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { DomainError } from './domain-error.js';
import type { ErrorDetail } from './domain-error.js';

/**
 * Edge validation of JSON bodies (STYLE §3): unknown fields are refused, types are checked, and the
 * 400 names every bad field by its dotted path.
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors: ValidationError[]) => {
      const details = flatten(errors);
      return DomainError.invalid(`invalid request: ${details.map((d) => d.message).join('; ')}`, details);
    },
  });
}

function flatten(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  return errors.flatMap((error) => {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({
      field,
      // class-validator names only the leaf property; the full path makes nested fields unambiguous.
      message: prefix ? message.replace(new RegExp(`^${escapeRegExp(error.property)}\\b`), field) : message,
    }));
    return [...own, ...flatten(error.children ?? [], field)];
  });
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
