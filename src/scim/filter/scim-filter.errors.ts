/**
 * RFC 7644 §3.12: "invalidFilter — The specified filter syntax was invalid (does not comply with
 * Figure 1), or the specified attribute and filter comparison combination is not supported."
 * PATCH paths use "invalidPath — The "path" attribute was invalid or malformed (see Figure 7)."
 */
export type ScimFilterErrorType = 'invalidFilter' | 'invalidPath';

/** A filter or PATCH path could not be parsed. Maps to HTTP 400 with `scimType`. */
export class ScimFilterError extends Error {
  override readonly name = 'ScimFilterError';
  readonly status = 400;

  constructor(
    message: string,
    /** 0-based character offset in the input where the problem was found. */
    readonly position: number,
    readonly scimType: ScimFilterErrorType = 'invalidFilter',
  ) {
    super(message);
  }
}
