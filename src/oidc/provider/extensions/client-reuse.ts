import type Provider from 'oidc-provider';
import type { AdapterPayload } from 'oidc-provider';
import type { ClientStore } from '../../adapter/client.store.js';

type FoundClient = Awaited<ReturnType<Provider['Client']['find']>>;

/**
 * oidc-provider's `Client.find` (lib/models/client.js) asks the adapter for a client's metadata and then
 * hashes all of it (`JSON.stringify` + SHA-256) on every look-up, to find the `Client` it built for the
 * same metadata: about 20 µs a look-up, one at userinfo and two at introspection (BENCHMARKS.md, "Where each goal stands").
 * ClientStore already hands out the same payload object for as long as it keeps a registration
 * (CLIENT_CACHE_MS, or until forgetClient), so the `Client` built for that object is given again without
 * the hash.
 *
 * What a change to an application takes effect by is unchanged: a registration read again (changed,
 * forgotten, expired from the store's cache) is a new payload object, which is not in the map, and goes
 * through the library's own `find`; a deleted or disabled client is not found by the store, and the
 * library's `find` answers as before. The map holds payloads weakly: a `Client` lives no longer than the
 * registration it was built from is kept. Static clients (`configuration.clients`) are never asked of the
 * store (the library answers them from its own map).
 */
export function reuseClientsOfUnchangedRegistrations(provider: Provider, store: ClientStore, staticClientIds: ReadonlySet<string>): void {
  const Client = provider.Client;
  const find = Client.find;
  const built = new WeakMap<AdapterPayload, NonNullable<FoundClient>>();
  Client.find = async function findReusingClient(this: unknown, id: string, ...rest: unknown[]) {
    if (typeof id !== 'string' || staticClientIds.has(id)) return find.call(this, id, ...rest);
    const payload = await store.find(id);
    if (!payload) return find.call(this, id, ...rest);
    const reused = built.get(payload);
    if (reused) return reused;
    // The library reads the same registration (the store's cache) and builds or finds its Client.
    const client = await find.call(this, id, ...rest);
    if (client) built.set(payload, client);
    return client;
  } as typeof Client.find;
}
