/** Error codes of the domain; each API surface maps every code once (see its exception filter). */
export enum ErrorCode {
  InvalidArgument = 'invalid_argument',
  Unauthenticated = 'unauthenticated',
  PermissionDenied = 'permission_denied',
  NotFound = 'not_found',
  AlreadyExists = 'already_exists',
  FailedPrecondition = 'failed_precondition',
  /** The change would break an invariant of current state (the last IAM_OWNER, the default organization). */
  Conflict = 'conflict',
  PayloadTooLarge = 'payload_too_large',
  Unavailable = 'unavailable',
  /** Asked again too soon (RFC 6585 §4): answered with `Retry-After`. */
  TooManyRequests = 'too_many_requests',
}

export interface ErrorDetail {
  /** The request field the problem is about, dotted (`profile.firstName`), when there is one. */
  field?: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }

  static notFound(what: string): DomainError {
    return new DomainError(ErrorCode.NotFound, `${what} not found`);
  }

  static alreadyExists(message: string): DomainError {
    return new DomainError(ErrorCode.AlreadyExists, message);
  }

  static invalid(message: string, details: ErrorDetail[] = []): DomainError {
    return new DomainError(ErrorCode.InvalidArgument, message, details);
  }

  /** A 400 about one field, its message also the detail's. */
  static invalidField(field: string, message: string): DomainError {
    return DomainError.invalid(message, [{ field, message }]);
  }
}

/** Asked again too soon: the surface answers 429 with `Retry-After` (RFC 6585 §4, RFC 9110 §10.2.3). */
export class TooSoonError extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(ErrorCode.TooManyRequests, message);
  }
}

/** Exhaustiveness check for switches over ErrorCode: a new code cannot ship unmapped. */
export function assertNever(value: never): never {
  throw new Error(`unhandled value ${String(value)}`);
}
