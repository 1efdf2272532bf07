import { interactionPolicy } from 'oidc-provider';

/**
 * oidc-provider's default prompts (login, consent) plus `select_account` (OIDC Core §3.1.2.1) and
 * `create` (OpenID Connect Prompt Create 1.0), which the login UI answers. Consent is never asked:
 * every client is registered by an administrator of this instance (see loadExistingGrant).
 */
export function buildInteractionPolicy(): unknown[] {
  const { Prompt, base } = interactionPolicy;
  const policy = base();
  policy.add(new Prompt({ name: 'select_account', requestable: true }), 0);
  policy.add(new Prompt({ name: 'create', requestable: true }), 0);
  return policy;
}
