import { Catch, HttpException } from '@nestjs/common';
import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { DpopChallenge } from '../../common/auth/dpop-proof.js';
import { DatabaseAvailability } from '../../common/database/database-availability.js';
import { DomainError, ErrorCode, assertNever } from '../../common/errors/domain-error.js';
import { ScimFilterError } from '../filter/index.js';
import { ScimPatchError } from '../patch/index.js';
import { SCIM_MEDIA_TYPE } from '../scim.constants.js';
import { setErrorHeaders } from '../../common/http/error-headers.js';
import { errorMessage, noteFailure } from '../../common/http/failure-causes.js';
import { ScimError, scimErrorBody, statusWord } from './scim-error.js';

/** Any error as a ScimError: the one place where domain codes meet SCIM statuses (RFC 7644 §3.12). */
export function toScimError(error: unknown): ScimError | null {
  if (error instanceof ScimError) return error;
  if (error instanceof ScimFilterError) return new ScimError(400, error.message, error.scimType);
  if (error instanceof ScimPatchError) return new ScimError(400, error.message, error.scimType);
  if (error instanceof DomainError) return fromDomain(error);
  if (error instanceof HttpException) {
    const status = error.getStatus();
    return status >= 500 ? null : new ScimError(status, error.message, undefined, statusWord(status));
  }
  return null;
}

function fromDomain(error: DomainError): ScimError {
  const message = error.details.length > 0 ? `${error.message}: ${error.details.map((d) => d.message).join('; ')}` : error.message;
  switch (error.code) {
    case ErrorCode.InvalidArgument:
      return new ScimError(400, message, 'invalidValue');
    case ErrorCode.Unauthenticated:
      return new ScimError(401, message, undefined, 'unauthenticated');
    case ErrorCode.PermissionDenied:
      return new ScimError(403, message, undefined, 'permissionDenied');
    case ErrorCode.NotFound:
      return new ScimError(404, message, undefined, 'notFound');
    case ErrorCode.AlreadyExists:
      return new ScimError(409, message, 'uniqueness');
    case ErrorCode.FailedPrecondition:
      return new ScimError(400, message, 'mutability');
    case ErrorCode.Conflict:
      return new ScimError(409, message, undefined, 'conflict');
    case ErrorCode.PayloadTooLarge:
      return new ScimError(413, message, 'tooMany', 'payloadTooLarge');
    case ErrorCode.Unavailable:
      return new ScimError(503, message, undefined, 'unavailable');
    case ErrorCode.TooManyRequests:
      return new ScimError(429, message, undefined, 'tooManyRequests');
    default:
      return assertNever(error.code);
  }
}

/**
 * Every error of the SCIM surface, guards' included, as an RFC 7644 §3.12 envelope in
 * `application/scim+json`. Anything unrecognised is a bug: answered 500 with the request id, its cause
 * and stack in the request's log line.
 */
@Catch()
export class ScimExceptionFilter implements ExceptionFilter {
  constructor(private readonly availability: DatabaseAvailability) {}

  catch(thrown: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const request = host.switchToHttp().getRequest<Request & { id?: string }>();
    const error = this.availability.answerFor(thrown);
    const scim = toScimError(error);
    if (!scim) noteFailure(response, { cause: `unhandled error: ${errorMessage(error)}`, err: error });
    else if (scim.status >= 500) noteFailure(response, { cause: scim.message });
    const status = scim?.status ?? 500;
    const body = scim
      ? scimErrorBody(scim.status, scim.message, scim.scimType, scim.id)
      : scimErrorBody(500, `internal error; request id ${String(request.id ?? 'unknown')}`, undefined, 'internal');
    setErrorHeaders(response, status, error instanceof DpopChallenge ? error.headers() : undefined);
    if (scim?.allow) response.setHeader('Allow', scim.allow);
    response.status(status).type(SCIM_MEDIA_TYPE).send(JSON.stringify(body));
  }
}
