import type { ArgumentMetadata, PipeTransform } from '@nestjs/common';
import { DomainError } from './domain-error.js';

/** Leading or trailing white space, or a NUL: in no identifier this service hands out. */
const NOT_AN_IDENTIFIER = /^\s|\s$|\0/;

/**
 * Path parameters are identifiers, matched exactly on both databases (docs/product-rules.md, "Domain"): MariaDB's PAD
 * SPACE collations compare `'<id> '` equal to `'<id>'`, so `GET …/Users/<id>%20` found — and PATCH changed —
 * the user `<id>`. A parameter no identifier can equal is not found, before any query, on every surface
 * (each answers 404 in its own shape). Runs after the guards, so what is refused there still is.
 */
export class ExactIdentifierPipe implements PipeTransform<unknown, unknown> {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'param' && typeof value === 'string' && NOT_AN_IDENTIFIER.test(value)) {
      throw DomainError.notFound(resourceOf(metadata.data));
    }
    return value;
  }
}

/** `orgId` → "organization", `userId` → "user", `id` → "resource". */
function resourceOf(param: string | undefined): string {
  const name = (param ?? '').replace(/Id$/, '');
  if (name === 'org') return 'organization';
  return name === '' || name === 'id' ? 'resource' : name;
}
