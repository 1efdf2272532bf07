import type Provider from 'oidc-provider';
import type { DpopReplays } from '../../../common/auth/dpop-replay.js';

type ReplayDetectionModel = { unique(iss: string, jti: string, exp: number): Promise<boolean> };

/**
 * oidc-provider's `ReplayDetection.unique` (models/replay_detection.js) finds the row, then saves it: two processes
 * can both find none and both accept one DPoP proof (RFC 9449 §11.1) or one client assertion (RFC 7523 §3). It is
 * replaced by one insert under the row's primary key (oidc/provider/dpop.ts, DpopReplayGuard), the set the admin API
 * and SCIM record their proofs in too. Called by helpers/validate_dpop.js (`checkDpopReplay`) and
 * shared/jwt_client_auth.js; test/oidc/extensions/replay-detection.test.ts checks both call sites, and
 * test/oidc/dpop-cluster.test.ts races one proof through two processes.
 */
export function useAtomicReplayDetection(provider: Provider, replays: DpopReplays): void {
  const model = provider.ReplayDetection as unknown as ReplayDetectionModel;
  model.unique = (iss, jti, exp) => replays.firstUse(iss, jti, exp * 1000);
}
