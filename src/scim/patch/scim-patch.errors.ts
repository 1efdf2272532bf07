/**
 * `scimType` values of RFC 7644 §3.12 (Table 9) that a PATCH can produce:
 * - invalidPath: "The "path" attribute was invalid or malformed."
 * - noTarget: "The specified "path" did not yield an attribute or attribute value that could be
 *   operated on. This occurs when the specified "path" value contains a filter that yields no match."
 * - invalidValue: "A required value was missing, or the value specified was not compatible with
 *   the operation or attribute type … or resource schema."
 * - mutability: "The attempted modification is not compatible with the target attribute's
 *   mutability or current state."
 * - invalidSyntax: "The request body message structure was invalid or did not conform to the
 *   request schema."
 */
export type ScimPatchErrorType = 'invalidPath' | 'noTarget' | 'invalidValue' | 'mutability' | 'invalidSyntax';

/** A PATCH request could not be applied. Maps to HTTP 400 with `scimType`; the resource is unchanged. */
export class ScimPatchError extends Error {
  override readonly name = 'ScimPatchError';
  readonly status = 400;

  constructor(
    readonly scimType: ScimPatchErrorType,
    message: string,
    /** Index in `Operations` of the failing operation, when known. */
    readonly operationIndex?: number,
  ) {
    super(operationIndex === undefined ? message : `Operations[${operationIndex}]: ${message}`);
  }

  /** The same error, attributed to operation `index`. */
  atOperation(index: number): ScimPatchError {
    return this.operationIndex === undefined ? new ScimPatchError(this.scimType, this.message, index) : this;
  }
}
