import { ERROR_DETAIL_SCHEMA, ERROR_SCHEMA } from '../scim.constants.js';

/**
 * `scimType` values of RFC 7644 §3.12, Table 9 (plus `tooMany`/`uniqueness`, and RFC 9865's `invalidCursor`), and the statuses this
 * surface answers with. A ScimError is data: status, optional scimType, a stable vendor error id
 * (docs/product-rules.md, "OpenID Connect and OAuth") and an untranslated message.
 */
type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive'
  | 'invalidCursor';

export class ScimError extends Error {
  override readonly name = 'ScimError';

  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: ScimType,
    /** Stable error id for the vendor ErrorDetail; defaults to scimType or a status word. */
    readonly id: string = scimType ?? statusWord(status),
    /** The `Allow` header of a 405 (RFC 9110 §15.5.6: the methods the resource does support). */
    readonly allow?: string,
  ) {
    super(message);
  }

  static methodNotAllowed(allow: string, message = 'this method is not allowed on this resource (RFC 7644 §3.2)'): ScimError {
    return new ScimError(405, message, undefined, statusWord(405), allow);
  }

  static badRequest(scimType: ScimType, message: string): ScimError {
    return new ScimError(400, message, scimType);
  }

  static notFound(message: string): ScimError {
    return new ScimError(404, message, undefined, 'notFound');
  }
}

export function statusWord(status: number): string {
  switch (status) {
    case 401:
      return 'unauthenticated';
    case 403:
      return 'permissionDenied';
    case 404:
      return 'notFound';
    case 405:
      return 'methodNotAllowed';
    case 409:
      return 'conflict';
    case 413:
      return 'payloadTooLarge';
    case 415:
      return 'unsupportedMediaType';
    case 501:
      return 'notImplemented';
    case 503:
      return 'unavailable';
    default:
      return status >= 500 ? 'internal' : 'badRequest';
  }
}

/** The RFC 7644 §3.12 error body with the vendor detail extension (docs/product-rules.md, "OpenID Connect and OAuth"). */
export function scimErrorBody(status: number, message: string, scimType: ScimType | undefined, id: string): Record<string, unknown> {
  return {
    schemas: [ERROR_SCHEMA, ERROR_DETAIL_SCHEMA],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail: message,
    [ERROR_DETAIL_SCHEMA]: { id, message },
  };
}
