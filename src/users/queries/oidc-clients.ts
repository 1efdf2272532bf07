import type { DataSource } from 'typeorm';
import { statementsOf } from '../../common/database/statements.js';
import { activeUserSql } from '../rules/user-state.js';

/** One row of the client look-up: an application, or a machine user with its secret (if any). */
export interface ClientRow {
  src: 'app' | 'machine';
  id: string;
  org_id: string;
  project_id: string | null;
  name: string;
  kind: string | null;
  client_id: string;
  secret: string | null;
  auth_method: string | null;
  redirect_uris: unknown;
  post_logout_redirect_uris: unknown;
  response_types: unknown;
  grant_types: unknown;
  access_token_type: string | null;
  id_token_userinfo_assertion: unknown;
  dev_mode: unknown;
  api_access: unknown;
  require_par: unknown;
  require_signed_request_object: unknown;
  request_object_requires_exp: unknown;
  authorization_signed_response_alg: string | null;
  dpop_bound_access_tokens: unknown;
  ssf_receiver: unknown;
  backchannel_logout_uri: string | null;
  backchannel_logout_session_required: unknown;
  /** The application's own key set (JSON text) or the URL that serves it; both null: keys registered through `…/keys`. */
  jwks: unknown;
  jwks_uri: string | null;
  subject_type: string | null;
  /** An API application's resource indicator (RFC 8707): tokens for it are introspectable by it. */
  resource_uri: string | null;
  /** Who may enter the application (docs/product-rules.md, "Application access"); `everyone` for a machine user. */
  access: string;
  /** The application's start page, linked from a refused sign-in's page; null for a machine user. */
  home_url: string | null;
}

/** A registered public key of an application (private_key_jwt, RFC 7523 §2.2). */
export interface ClientKeyRow {
  id: string;
  public_key: string;
  expires_at: unknown;
}

/**
 * Applications first: an application's client id wins over a machine user's id (both are unique ids).
 * A deactivated or locked machine user is no client: it gets no new tokens (its existing ones are
 * refused on use, where the state is read uncached).
 */
const CLIENT_SQL = `
  SELECT 'app' AS src, a.id, a.org_id, a.project_id, a.name, a.kind, a.client_id, a.client_secret_hash AS secret, a.auth_method,
         a.redirect_uris, a.post_logout_redirect_uris, a.response_types, a.grant_types, a.access_token_type,
         a.id_token_userinfo_assertion, a.dev_mode, a.api_access, a.require_par, a.require_signed_request_object, a.request_object_requires_exp,
         a.authorization_signed_response_alg, a.dpop_bound_access_tokens, a.ssf_receiver, a.backchannel_logout_uri, a.backchannel_logout_session_required,
         a.jwks, a.jwks_uri, a.subject_type, a.resource_uri, a.access, a.home_url
    FROM applications a WHERE a.client_id = ?
  UNION ALL
  SELECT 'machine' AS src, u.id, u.org_id, NULL, u.user_name, NULL, u.id, s.secret_hash, NULL,
         NULL, NULL, NULL, NULL, u.access_token_type, 0, 0, 0, 0, 0, 0,
         NULL, 0, 0, NULL, 0, NULL, NULL, 'public', NULL, 'everyone', NULL
    FROM users u LEFT JOIN machine_secrets s ON s.user_id = u.id WHERE u.id = ? AND u.type = 'machine' AND ${activeUserSql('u')}`;

/** The application of that client id and the active machine user of that id (with its secrets): one statement. */
export function clientRows(dataSource: DataSource, clientId: string): Promise<ClientRow[]> {
  return statementsOf(dataSource).rows<ClientRow>(CLIENT_SQL, [clientId, clientId]);
}

/** The public keys registered for an application (by its row id), expired ones included. */
export function applicationKeyRows(dataSource: DataSource, applicationId: string): Promise<ClientKeyRow[]> {
  return statementsOf(dataSource).rows<ClientKeyRow>("SELECT id, public_key, expires_at FROM public_keys WHERE owner_type = 'application' AND owner_id = ?", [
    applicationId,
  ]);
}
