import { assertPublicHost } from '../common/net/configured-target.js';

/**
 * A back-channel logout URI must point where logout tokens may be sent (docs/oauth-profiles.md,
 * "Back-channel logout"; docs/webhooks.md, "Targets on private networks"). Its shape is checked with
 * the application (oidc-application.rules.ts); here, before the change is written, where its host resolves: a
 * loopback, private or link-local address is a 400 unless `OUTBOUND_ALLOW_PRIVATE_NETWORKS`. The sender checks the
 * address again at every attempt (src/oidc/logout), since a name may resolve elsewhere later.
 */
export async function assertBackchannelLogoutTarget(uri: string | null | undefined, allowPrivateNetworks: boolean): Promise<void> {
  // An absent or malformed URI is not this check's: the application's validation reports it.
  if (!uri || !URL.canParse(uri)) return;
  // A name that does not resolve yet (an RP registered before its DNS) is accepted: the sender checks each attempt.
  await assertPublicHost(new URL(uri), 'backchannelLogoutUri', { allowPrivateNetworks }, 'accept');
}
