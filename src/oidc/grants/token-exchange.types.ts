/** RFC 8693 §3 token type identifiers, and the vendor user id type (docs/product-rules.md, "OpenID Connect and OAuth"). */
export const TokenType = {
  accessToken: 'urn:ietf:params:oauth:token-type:access_token',
  refreshToken: 'urn:ietf:params:oauth:token-type:refresh_token',
  idToken: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  userId: 'urn:portcullis:params:oauth:token-type:user_id',
} as const;

type Role = 'subject' | 'actor' | 'requested';

/**
 * Which token type may appear where (RFC 8693 §3). `jwt` and `user_id` subjects need an actor (they name a
 * user without that user's consent: impersonation); an actor is always an access token of the requesting
 * client, never an ID token (which proves a sign-in to its audience, not a right to act).
 */
const MATRIX: Record<string, Record<Role, boolean>> = {
  [TokenType.accessToken]: { subject: true, actor: true, requested: true },
  [TokenType.refreshToken]: { subject: false, actor: false, requested: false },
  [TokenType.idToken]: { subject: true, actor: false, requested: true },
  [TokenType.jwt]: { subject: true, actor: false, requested: true },
  [TokenType.userId]: { subject: true, actor: false, requested: false },
};

export function allowedAs(type: string, role: Role): boolean {
  return MATRIX[type]?.[role] ?? false;
}

export function needsActor(subjectType: string): boolean {
  return subjectType === TokenType.jwt || subjectType === TokenType.userId;
}
