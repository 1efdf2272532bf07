import { DomainError } from '../../common/errors/domain-error.js';
import { DocumentFault } from '../migration-plan.js';
import { JsonFault } from './json-file.js';

/** A fault of a request's text or structure: its 400, naming where; anything else as it is. */
export function asBadRequest(error: unknown): unknown {
  if (error instanceof JsonFault) return DomainError.invalid(error.message);
  if (error instanceof DocumentFault) return DomainError.invalidField(error.path, `invalid document: ${error.message}`);
  return error;
}
