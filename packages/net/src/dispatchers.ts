/**
 * The undici dispatchers (connection pools), one per strictness, whose `connect.lookup` resolves a name
 * once, refuses it when any of its addresses is refused and hands the socket exactly the addresses it
 * checked (address pinning). Through a proxy there is one `ProxyAgent`: the proxy resolves names. It
 * sends `http://` URLs to an `http://` proxy as absolute-form requests (`GET http://host/path HTTP/1.1`),
 * as curl and httpx do, and tunnels (CONNECT) the rest: proxies that allow CONNECT only to port 443,
 * Squid's default, refuse a tunnel to port 80.
 * undici is loaded with `await import()` on first use.
 */
import type { Dispatcher } from 'undici';
import { guardedLookup, type NetworkPolicy, type Resolver, type Strictness } from './policy.js';

export interface DispatchersOptions {
  policy: NetworkPolicy;
  resolve: Resolver;
  /** Every request goes through this HTTP(S) proxy. */
  proxyUrl?: string | undefined;
  /** Bounds connecting (at most 10 s), the proxy's tunnel, and each request's headers and body. */
  timeoutMs: number;
}

export interface Dispatchers {
  /** undici itself (loaded once, on the first call). */
  undici(): Promise<typeof import('undici')>;
  /** The pooled dispatcher for `strictness` (the proxy's, through a proxy), created on first use. */
  pooled(strictness: Strictness): Promise<Dispatcher>;
  /** A new dispatcher like the pooled one, kept nowhere: the caller closes it. */
  create(strictness: Strictness): Promise<Dispatcher>;
  /** Closes the pooled dispatchers. */
  close(): Promise<void>;
}

export function createDispatchers(options: DispatchersOptions): Dispatchers {
  let undici: Promise<typeof import('undici')> | undefined;
  // A bin that bundles undici (a CommonJS package) into an ESM chunk gets only a `default` export from
  // `import()`; Node's own interop gives named ones. Either way, the module's exports.
  const load = () =>
    (undici ??= import('undici').then((m) => ('Agent' in m ? m : (m as unknown as { default: typeof import('undici') }).default)));
  const pool = new Map<Strictness | 'proxy', Dispatcher>();

  async function create(strictness: Strictness): Promise<Dispatcher> {
    const { Agent, Pool, ProxyAgent } = await load();
    const { timeoutMs, proxyUrl } = options;
    const common = { keepAliveTimeout: 4_000, headersTimeout: timeoutMs, bodyTimeout: timeoutMs };
    return proxyUrl
      ? new ProxyAgent({
          uri: proxyUrl,
          ...common,
          // undici's default tunnels every request, plain http:// ones as `CONNECT host:80`.
          proxyTunnel: false,
          // The tunnel (CONNECT) request to the proxy gets the same bounds as a request (undici's
          // defaults: 10 s to connect, 300 s for the proxy's answer); connecting to the proxy for an
          // absolute-form request is bounded by the same `timeout`.
          proxyTls: { timeout: Math.min(timeoutMs, 10_000) },
          clientFactory: (origin, opts) => new Pool(origin, { ...opts, headersTimeout: timeoutMs }),
        })
      : new Agent({
          ...common,
          connect: {
            lookup: guardedLookup(strictness, options.resolve, options.policy.name),
            timeout: Math.min(timeoutMs, 10_000),
          },
        });
  }

  return {
    undici: load,
    async pooled(strictness) {
      const key = options.proxyUrl ? 'proxy' : strictness;
      let dispatcher = pool.get(key);
      if (!dispatcher) {
        dispatcher = await create(strictness);
        pool.set(key, dispatcher);
      }
      return dispatcher;
    },
    create,
    async close() {
      const all = [...pool.values()];
      pool.clear();
      await Promise.allSettled(all.map((d) => d.close()));
    },
  };
}
