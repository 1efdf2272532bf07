/** RFC 8693 §2.1 grant type. */
export const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** Token type identifiers (RFC 8693 §3), plus Portcullis's own for a bare user id. */
export const TOKEN_TYPE = {
  access: 'urn:ietf:params:oauth:token-type:access_token',
  refresh: 'urn:ietf:params:oauth:token-type:refresh_token',
  id: 'urn:ietf:params:oauth:token-type:id_token',
  jwt: 'urn:ietf:params:oauth:token-type:jwt',
  userId: 'urn:portcullis:params:oauth:token-type:user_id',
};

/** The loopback relying party the exchange suites register their applications for. */
export const RP = 'http://127.0.0.1:65530';
