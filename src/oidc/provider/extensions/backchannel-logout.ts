import type Provider from 'oidc-provider';

/**
 * `Client#backchannelLogout`, which oidc-provider calls at end-session for each client with a `backchannel_logout_uri`
 * (lib/actions/end_session.js) and which is its only sender of Logout Tokens: it would POST inline during the request,
 * once, without the outbound address rules (src/common/net/outbound-address.ts) and without retries. Here it sends
 * nothing; the session's end
 * writes the logout tokens to the outbox in its own transaction (src/oidc/logout/backchannel-logout.sender.ts), which
 * sends each once, leased, under those rules. The feature stays on for its discovery metadata and client metadata.
 */
export function sendNoLogoutTokensInline(provider: Provider): void {
  provider.Client.prototype.backchannelLogout = async () => undefined;
}
