import { Injectable } from '@nestjs/common';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import { catchError } from 'rxjs';
import type { Observable } from 'rxjs';
import { DomainError, ErrorCode } from '../errors/domain-error.js';
import { DatabaseAvailability } from './database-availability.js';
import { isDatabaseUnavailable } from './database-unavailable.js';

/** Turns "database unreachable or locked" into DomainError Unavailable, which every surface maps to 503. */
@Injectable()
export class DatabaseUnavailableInterceptor implements NestInterceptor {
  constructor(private readonly availability: DatabaseAvailability) {}

  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (!isDatabaseUnavailable(error)) throw error;
        this.availability.reportUnavailable(error);
        throw databaseUnavailable();
      }),
    );
  }
}

export function databaseUnavailable(): DomainError {
  return new DomainError(ErrorCode.Unavailable, 'the database is unavailable; retry shortly');
}
