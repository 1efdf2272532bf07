/**
 * Debian's glewlwyd in the OIDC scenarios: the requests of each scenario on glewlwyd's
 * routes (bench/peers/glewlwyd.ts), measured by bench/scenarios/oidc.ts right after the Portcullis figure
 * they sit beside, in its alternating rounds. A product shown for the reader, not the targets' base (those
 * compare with the raw library: bench/lib/targets.ts, `isProductPeer`).
 *
 * A fresh glewlwyd (and database) per measurement, like the raw peer: tokens of one scenario do not pile
 * up in the next one's tables. With `--quick` (every scenario runs, none is measured) one glewlwyd serves
 * them all: its start and set-up take seconds.
 */
import { load, perOperation } from '../lib/load.js';
import type { Timing } from '../lib/load.js';
import { glewlwydLoginChain, glewlwydMissing, glewlwydServer, introspectRequest, PLUGIN, startGlewlwyd, tokenRequest } from '../peers/glewlwyd.js';
import type { GlewlwydPeer } from '../peers/glewlwyd.js';

type Requests = (p: GlewlwydPeer) => Record<string, unknown>[];

/** The scenarios glewlwyd serves, by the id of bench/scenarios/oidc.ts (its tokens are JWTs it also records: one introspection). */
const REQUESTS: Record<string, Requests> = {
  'oidc.client-credentials': (p) => [tokenRequest(p)],
  'oidc.introspection-opaque': (p) => [introspectRequest(p)],
  'oidc.userinfo': (p) => [{ method: 'GET', path: `/api/${PLUGIN}/userinfo`, headers: { authorization: `Bearer ${p.userToken}` } }],
  'oidc.jwks': () => [{ method: 'GET', path: `/api/${PLUGIN}/jwks` }],
};

type Figures = Awaited<ReturnType<typeof load>>;
const withoutSocketErrors = ({ socketErrors: _, ...figures }: Figures) => figures;

export interface GlewlwydSide {
  /** The measurement of scenario `id` on a fresh glewlwyd, or undefined where it has no equivalent. */
  scenario(id: string, timing: Timing): (() => Promise<Omit<Figures, 'socketErrors'>>) | undefined;
  /** Code-flow logins per second on a fresh glewlwyd. */
  logins(seconds: number): Promise<Omit<Figures, 'socketErrors'>>;
  /** How the figures are recorded beside Portcullis with `workers` processes. */
  recordedAs(workers: number): { kind: 'peer'; server: string; nextTo: number };
  /** Stops the glewlwyd kept for all measurements (`keep`), if one was started. */
  close(): Promise<void>;
}

/**
 * glewlwyd's side of the OIDC scenarios, or undefined (saying why) when the package is not installed;
 * `keep`: one glewlwyd for every measurement instead of a fresh one each.
 */
export function glewlwydSide(keep: boolean): GlewlwydSide | undefined {
  const missing = glewlwydMissing();
  if (missing) {
    console.error(`  glewlwyd NOT measured: ${missing}; nothing is recorded for it`);
    return undefined;
  }
  const server = glewlwydServer();
  let kept: Promise<GlewlwydPeer> | undefined;
  const onGlewlwyd = async <T>(work: (peer: GlewlwydPeer) => Promise<T>): Promise<T> => {
    if (keep) return work(await (kept ??= startGlewlwyd()));
    const peer = await startGlewlwyd();
    try {
      return await work(peer);
    } finally {
      await peer.stop();
    }
  };
  return {
    scenario(id, timing) {
      const requests = REQUESTS[id];
      if (!requests) return undefined;
      return () => onGlewlwyd(async (p) => withoutSocketErrors(await load(p.url, p.pid, timing, requests(p))));
    },
    logins: (seconds) => onGlewlwyd((p) => logins(p, seconds)),
    recordedAs: (workers) => ({ kind: 'peer', server: workers === 1 ? server : `${server} (beside WORKERS=${workers})`, nextTo: workers }),
    // A glewlwyd that failed to start has said so to its measurement already.
    close: async () => (await kept?.catch(() => undefined))?.stop(),
  };
}

/** As bench/scenarios/oidc.ts counts them: a login counts when its code redemption answers 200; no warm-up. */
async function logins(p: GlewlwydPeer, seconds: number) {
  const done = { logins: 0, failed: 0 };
  return perOperation(await load(p.url, p.pid, { seconds, warmup: 0 }, glewlwydLoginChain(p, done)), seconds, { completed: done.logins, failed: done.failed });
}
