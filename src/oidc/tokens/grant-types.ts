/** RFC 7523 §2.1: JWT bearer token as an authorization grant (the JWT profile grant of machine users). */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** RFC 8693 §2.1. */
export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
