/**
 * The OpenAPI extension that carries a route's access policy from its decorator (`Authenticated`,
 * `AnyCaller`, `Public`) to the finished document, where `completeOpenApiDocument` turns it into the operation's
 * security and the role line of its description. An extension, not `ApiOperation({description})`:
 * @nestjs/swagger merges every ApiOperation of a method into one object (and fills `summary: ''`), so
 * a description set there by one decorator would be lost or would clobber the route's own, depending
 * on decorator order; extensions are kept side by side.
 */
export const ACCESS_EXTENSION = 'x-portcullis-access';

export type AccessExtension = { public: true } | { role: string; organizationParameter?: string };

/** `AnyCaller`: any valid token, about itself only (no role, no 403). */
export type CallerAccessExtension = { caller: true };
