import { Injectable } from '@nestjs/common';
import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { Response } from 'express';
import type { Observable } from 'rxjs';
import { SCIM_MEDIA_TYPE } from '../scim.constants.js';

/** RFC 7644 §3.1: responses are `application/scim+json`. Express keeps a type set before `res.json`. */
@Injectable()
export class ScimContentTypeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    context.switchToHttp().getResponse<Response>().type(SCIM_MEDIA_TYPE);
    return next.handle();
  }
}
