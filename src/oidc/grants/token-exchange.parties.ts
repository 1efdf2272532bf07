import { createPublicKey } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { errors } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { applicationKeyByClientId, userById } from '../../users/queries/grant-parties.js';
import type { JwtTokenIds } from '../tokens/jwt-access-tokens.js';
import { tokenAudience } from '../tokens/audience.js';
import { TokenType } from './token-exchange.types.js';
import { SUBJECT_NOT_SERVED, invalidGrant } from '../provider/oauth-errors.js';

/** What a presented subject or actor token stands for, and the most a token exchanged for it may carry. */
export interface Party {
  userId: string;
  /** The audience of the presented token; an exchanged token's audience stays within it. */
  audience: string[];
  /** The scope of the presented token; an exchanged token's scope stays within it. Null: the token names a user only. */
  scope: string[] | null;
}

interface PartyDeps {
  dataSource: DataSource;
  ownJwts: JwtTokenIds;
}

interface RequestingClient {
  clientId: string;
}

/** OIDC Core §5.4: which scope each claim of an ID token was released under. */
const SCOPE_OF_CLAIM: Record<string, string> = {
  name: 'profile', given_name: 'profile', family_name: 'profile', nickname: 'profile', preferred_username: 'profile',
  gender: 'profile', locale: 'profile', zoneinfo: 'profile', profile: 'profile', updated_at: 'profile',
  email: 'email', email_verified: 'email', phone_number: 'phone', phone_number_verified: 'phone', address: 'address',
  groups: 'groups',
};

/**
 * The subject token (RFC 8693 §2.1): it must have been issued to the requesting client or name it in
 * its audience, so one client cannot turn another client's tokens into its own (SECURITY.md, "Token
 * exchange"). `jwt` and `user_id` subjects name a user without a token of that user: impersonation,
 * bounded by the actor instead.
 */
export async function resolveSubject(provider: any, deps: PartyDeps, client: RequestingClient, token: string, type: string): Promise<Party> {
  switch (type) {
    case TokenType.accessToken:
      return accessTokenParty(provider, deps, client, token, 'subject');
    case TokenType.idToken:
      return idTokenParty(deps, client, token);
    case TokenType.jwt:
      return { userId: await clientSignedSubject(deps.dataSource, client.clientId, token), audience: [client.clientId], scope: null };
    case TokenType.userId: {
      const user = await userById(deps.dataSource, token);
      if (!user) throw invalidGrant(SUBJECT_NOT_SERVED);
      return { userId: user.id, audience: [], scope: null };
    }
    default:
      throw new errors.InvalidRequest('unsupported token type');
  }
}

/** RFC 8693 §4.1: the actor of an impersonation is an access token this very client obtained for its user. */
export async function resolveActor(provider: any, deps: PartyDeps, client: RequestingClient, token: string): Promise<Party> {
  return accessTokenParty(provider, deps, client, token, 'actor');
}

async function accessTokenParty(provider: any, deps: PartyDeps, client: RequestingClient, token: string, role: 'subject' | 'actor'): Promise<Party> {
  const found = (await provider.AccessToken.find(token)) ?? (await provider.ClientCredentials.find(token));
  if (!found?.isValid) throw invalidGrant(`the ${role} access token is not valid`);
  const audience = await tokenAudience(deps.dataSource, found);
  const issuedToClient = found.clientId === client.clientId;
  if (role === 'actor' && !issuedToClient) throw invalidGrant('the actor token was not issued to this client');
  if (role === 'subject' && !issuedToClient && !audience.includes(client.clientId)) {
    throw invalidGrant('the subject token was neither issued to this client nor names it in its audience');
  }
  return { userId: found.accountId ?? found.clientId, audience, scope: String(found.scope ?? '').split(' ').filter(Boolean) };
}

/**
 * An ID token signed by this instance, unexpired, issued to (or naming) the requesting client. A JWT
 * access token (`typ: at+jwt`, RFC 9068 §2.1) is never one, even with a valid signature: a revoked access
 * token must not come back as an "ID token".
 */
async function idTokenParty(deps: PartyDeps, client: RequestingClient, token: string): Promise<Party> {
  let typ: string | undefined;
  try {
    typ = decodeProtectedHeader(token).typ;
  } catch {
    throw invalidGrant('the id_token is not a JWT');
  }
  if (typ !== undefined && typ.toLowerCase() !== 'jwt') throw invalidGrant(`a token of type ${typ} is not an id_token`);
  const claims = await deps.ownJwts.verify(token);
  if (!claims?.sub) throw invalidGrant('the id_token is not valid');
  const audience = [claims.aud].flat().filter((a): a is string => typeof a === 'string');
  if (!audience.includes(client.clientId) && claims.azp !== client.clientId) throw invalidGrant('the id_token was not issued to this client');
  const scope = ['openid', ...new Set(Object.keys(claims).flatMap((claim) => SCOPE_OF_CLAIM[claim] ?? []))];
  return { userId: claims.sub, audience, scope };
}

/** A JWT the client signed with one of its application keys, naming the user in `sub`. */
async function clientSignedSubject(dataSource: DataSource, clientId: string, jwt: string): Promise<string> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(jwt).kid;
  } catch {
    throw invalidGrant('the subject token is not a JWT');
  }
  const key = kid ? await applicationKeyByClientId(dataSource, clientId, kid) : null;
  if (!key) throw invalidGrant('the subject token is not signed by a key of this client');
  try {
    const { payload } = await jwtVerify(jwt, createPublicKey(key.publicKey), { issuer: clientId, maxTokenAge: 3600 });
    if (typeof payload.sub !== 'string') throw new Error('sub missing');
    return payload.sub;
  } catch (error) {
    throw invalidGrant(`invalid subject token: ${(error as Error).message}`);
  }
}
