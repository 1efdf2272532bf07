import { All, Controller, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../common/auth/authenticated.decorator.js';
import { ScimError } from '../errors/scim-error.js';
import { ScimExceptionFilter } from '../errors/scim-exception.filter.js';

/**
 * Any other path under a SCIM base: 404 as a SCIM error, not the admin JSON shape, so that a client
 * probing an endpoint this service does not offer (`/Groups/{id}`, `/Me`) reads an answer it understands.
 * Registered after every other SCIM controller.
 */
@ApiExcludeController()
@Controller('scim/v2/:orgId')
@UseFilters(ScimExceptionFilter)
export class ScimFallbackController {
  /** A search across every resource type at the root (RFC 7644 §3.4.3) is not offered: 501, in the SCIM envelope, whatever the method. */
  @All('.search')
  @Public()
  rootSearch(): never {
    throw new ScimError(501, 'searching the root (POST /.search, RFC 7644 §3.4.3) is not supported; search /Users/.search or /Groups/.search');
  }

  // The base itself (with or without a trailing slash) and every other path.
  @All(['', '*path'])
  @Public()
  notFound(): never {
    throw ScimError.notFound('no such SCIM endpoint; this service provider offers /Users, /Groups, /Bulk and discovery (RFC 7644 §4)');
  }
}
