import { Catch, HttpException, HttpStatus } from '@nestjs/common';
import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { DatabaseAvailability } from '../database/database-availability.js';
import { DpopChallenge } from '../auth/dpop-proof.js';
import { setErrorHeaders } from '../http/error-headers.js';
import { errorMessage, noteFailure } from '../http/failure-causes.js';
import type { FailureCause } from '../http/failure-causes.js';
import { DomainError, ErrorCode, TooSoonError, assertNever } from './domain-error.js';
import type { ErrorDetail } from './domain-error.js';

interface ApiErrorBody {
  code: number;
  message: string;
  details: ErrorDetail[];
}

/** HTTP status of each domain error code, for the admin and management JSON surface. */
export function statusOf(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.InvalidArgument:
      return HttpStatus.BAD_REQUEST;
    case ErrorCode.Unauthenticated:
      return HttpStatus.UNAUTHORIZED;
    case ErrorCode.PermissionDenied:
      return HttpStatus.FORBIDDEN;
    case ErrorCode.NotFound:
      return HttpStatus.NOT_FOUND;
    case ErrorCode.AlreadyExists:
      return HttpStatus.CONFLICT;
    case ErrorCode.FailedPrecondition:
      return HttpStatus.BAD_REQUEST;
    case ErrorCode.Conflict:
      return HttpStatus.CONFLICT;
    case ErrorCode.PayloadTooLarge:
      return HttpStatus.PAYLOAD_TOO_LARGE;
    case ErrorCode.Unavailable:
      return HttpStatus.SERVICE_UNAVAILABLE;
    case ErrorCode.TooManyRequests:
      return HttpStatus.TOO_MANY_REQUESTS;
    default:
      return assertNever(code);
  }
}

/**
 * Maps every error of the admin surface to `{code, message, details}` (docs/product-rules.md, "API"). Anything that is
 * neither a DomainError nor an HTTP error is a bug: answered as a 500 that names the request id and
 * nothing else; its cause and stack go into the request's log line.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly availability: DatabaseAvailability) {}

  catch(thrown: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const request = host.switchToHttp().getRequest<Request & { id?: string }>();
    const error = this.availability.answerFor(thrown);
    const body = this.toBody(error, request);
    if (body.code >= 500) noteFailure(response, failureCause(error));
    setErrorHeaders(response, body.code, error instanceof DpopChallenge ? error.headers() : undefined);
    if (error instanceof TooSoonError) response.setHeader('Retry-After', String(error.retryAfterSeconds));
    response.status(body.code).json(body);
  }

  private toBody(error: unknown, request: Request & { id?: string }): ApiErrorBody {
    if (error instanceof DomainError) {
      return { code: statusOf(error.code), message: error.message, details: error.details };
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      return { code: status, message: httpMessage(error), details: [] };
    }
    return { code: 500, message: `internal error; request id ${String(request.id ?? 'unknown')}`, details: [] };
  }
}

/** An answered domain error (an outage) needs no stack; anything else is a bug and keeps it. */
function failureCause(error: unknown): FailureCause {
  return error instanceof DomainError ? { cause: error.message } : { cause: `unhandled error: ${errorMessage(error)}`, err: error };
}

function httpMessage(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  return Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : error.message;
}
