import { DomainError } from '../common/errors/domain-error.js';
import type { ErrorDetail } from '../common/errors/domain-error.js';
import { checkEndpointUrl } from './rules/endpoint-url.js';
import type { ResourceScope } from './entities/application.entity.js';

/**
 * Scopes a resource may not define: those of OpenID Connect and of this instance, which every token may carry
 * beside a resource's own (docs/agents.md, "Resources"), and the Portcullis audience scopes.
 */
export const RESERVED_SCOPES: ReadonlySet<string> = new Set(['openid', 'profile', 'email', 'phone', 'address', 'roles', 'offline_access', 'groups']);
const RESERVED_PREFIX = 'urn:portcullis:';

/**
 * The scopes a token for an API application's resource may carry beside the resource's own (docs/agents.md,
 * "Resources"): who the person is, their roles, and `offline_access`, which alone yields a refresh token.
 */
export const RESOURCE_COMPANION_SCOPES = ['openid', 'profile', 'email', 'roles', 'offline_access'];

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export const RESOURCE_SCOPE_BOUNDS = { name: 100, description: 500, count: 100 } as const;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const LOOPBACK_HTTP = { allows: (url: URL) => LOOPBACK.has(url.hostname), refusal: 'https is needed (http only to localhost, 127.0.0.1 or [::1])' };

/** What an API application says of itself as a resource server (RFC 8707; docs/agents.md, "Resources"). */
export interface ApiResourceSettings {
  resourceUri: string | null;
  scopes: ResourceScope[];
}

/**
 * RFC 8707 §2: a resource indicator is an absolute URI without a fragment; here an https URL (http only on
 * loopback, for development) without user information. Scope names are scope-tokens, unique, and none of the
 * reserved ones. Every problem is a 400 naming its field.
 */
export function validateApiResource(settings: ApiResourceSettings): void {
  const problems: ErrorDetail[] = [];
  if (settings.resourceUri !== null) checkEndpointUrl(settings.resourceUri, 'resourceUri', LOOPBACK_HTTP, problems);
  if (settings.resourceUri === null && settings.scopes.length > 0) problems.push({ field: 'scopes', message: 'scopes need a resourceUri' });
  const seen = new Set<string>();
  settings.scopes.forEach(({ name }, i) => {
    const field = `scopes[${i}].name`;
    if (!SCOPE_TOKEN.test(name)) problems.push({ field, message: 'a scope-token (RFC 6749 §3.3): printable ASCII without spaces, " or \\' });
    else if (RESERVED_SCOPES.has(name) || name.startsWith(RESERVED_PREFIX)) problems.push({ field, message: `${name} is reserved` });
    else if (seen.has(name)) problems.push({ field, message: `${name} is defined twice` });
    seen.add(name);
  });
  if (problems.length > 0) throw DomainError.invalid('the resource settings are invalid', problems);
}

/** The 409 for a resource URI another application of the instance already has. */
export function resourceUriTaken(resourceUri: string): DomainError {
  return DomainError.alreadyExists(`resourceUri ${resourceUri} belongs to another application`);
}
