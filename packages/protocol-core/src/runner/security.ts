import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { normalHostname, parseAllowedHost } from './hosts.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function isWildcardHost(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

function bracket(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host.toLowerCase();
}

/**
 * Which `Host` (and `Origin`) names a server accepts, each with the ports it accepts: a set of ports,
 * or `'any'` for an `--allowed-host` entry given without a port.
 */
export type HostPolicy = ReadonlyMap<string, ReadonlySet<number> | 'any'>;

/**
 * The policy for a server bound to `bindHost`:`boundPort` (the real port, after listen): the loopback
 * names for a loopback bind; for a wildcard bind those plus every local interface address; otherwise
 * the bound name itself, each on `boundPort` only. `extra` adds what a reverse proxy forwards
 * (`--allowed-host`): a name without a port on any port, `name:port` on that port.
 */
export function hostPolicy(bindHost: string, boundPort: number, extra: readonly string[] = []): HostPolicy {
  const policy = new Map<string, Set<number> | 'any'>();
  const add = (hostname: string, port?: number) => {
    const ports = policy.get(hostname);
    if (ports === 'any') return;
    if (port === undefined) policy.set(hostname, 'any');
    else if (ports) ports.add(port);
    else policy.set(hostname, new Set([port]));
  };
  for (const entry of extra) {
    const { hostname, port } = parseAllowedHost(entry);
    add(hostname, port);
  }
  const bound: string[] = [];
  if (isLoopbackHost(bindHost) || isWildcardHost(bindHost)) bound.push(...LOOPBACK_NAMES);
  if (isLoopbackHost(bindHost)) bound.push(bracket(bindHost));
  else if (isWildcardHost(bindHost)) {
    for (const list of Object.values(networkInterfaces())) for (const nic of list ?? []) bound.push(bracket(nic.address));
  } else bound.push(bracket(bindHost));
  for (const name of bound) {
    const hostname = normalHostname(name);
    if (hostname) add(hostname, boundPort);
  }
  return policy;
}

function allows(policy: HostPolicy, hostname: string, port: number): boolean {
  const ports = policy.get(hostname);
  return ports === 'any' || ports?.has(port) === true;
}

/** Whether a `Host` header names an allowed host and port (no port means 80, as in HTTP). */
function hostAllowed(policy: HostPolicy, hostHeader: string): boolean {
  const hostname = normalHostname(hostHeader);
  if (!hostname) return false;
  const port = new URL(`http://${hostHeader}`).port;
  return allows(policy, hostname, port ? Number(port) : 80);
}

/** Whether an `Origin` is listed (`--allowed-origin`) or an http(s) origin on an allowed host and port. */
function originAllowed(policy: HostPolicy, origins: readonly string[], origin: string): boolean {
  if (origins.includes(origin)) return true; // listed verbatim: also `null` or an extension's scheme
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (origins.some((o) => sameOrigin(o, url))) return true;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return allows(policy, url.hostname, port);
}

function sameOrigin(allowed: string, url: URL): boolean {
  try {
    return new URL(allowed).origin === url.origin;
  } catch {
    return false;
  }
}

export type Refusal = { status: number; message: string; headers?: Record<string, string> };

export interface GuardOptions {
  hosts: HostPolicy;
  /** Origins allowed besides those of allowed hosts (`--allowed-origin`). */
  origins: readonly string[];
  authToken?: string;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * DNS-rebinding and auth checks for one request: a foreign `Host` → 403, a foreign `Origin` → 403
 * (spec 2025-11-25), a missing or wrong bearer token → 401 with `WWW-Authenticate`.
 * Returns undefined when the request may proceed.
 */
export function checkRequest(req: IncomingMessage, { hosts, origins, authToken }: GuardOptions): Refusal | undefined {
  const host = req.headers.host;
  if (!host || !hostAllowed(hosts, host)) {
    // The flag that would accept it, for a name that could be one (the header is the client's: nothing else is echoed).
    const hint = host && /^[A-Za-z0-9.-]+(:\d+)?$/.test(host) ? `; accept it with --allowed-host ${host.replace(/:\d+$/, '')}` : '';
    return { status: 403, message: `Forbidden: Host header ${JSON.stringify(host ?? '')} is not allowed${hint}` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !originAllowed(hosts, origins, origin)) {
    const hint = /^https?:\/\/[A-Za-z0-9.-]+(:\d+)?$/.test(origin) ? `; accept it with --allowed-origin ${origin}` : '';
    return { status: 403, message: `Forbidden: Origin ${JSON.stringify(origin)} is not allowed${hint}` };
  }
  if (authToken !== undefined) {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    // RFC 6750 §3.1: no error code when the request carried no bearer token at all.
    if (!match?.[1]) {
      return {
        status: 401,
        message: 'Unauthorized: a valid bearer token is required',
        headers: { 'WWW-Authenticate': 'Bearer realm="mcp"' },
      };
    }
    if (!timingSafeEqual(digest(match[1].trim()), digest(authToken))) {
      return {
        status: 401,
        message: 'Unauthorized: a valid bearer token is required',
        headers: { 'WWW-Authenticate': 'Bearer realm="mcp", error="invalid_token"' },
      };
    }
  }
  return undefined;
}

/**
 * Listens on `host:port` and returns the guard for the port actually bound (`port` may be 0) and the address as a
 * URL host (`[::1]` for IPv6): what the HTTP and WebSocket runners share before their first request is checked.
 */
export async function listenGuarded(
  server: Server,
  port: number,
  host: string,
  options: { allowedHosts?: readonly string[]; allowedOrigins?: readonly string[] },
  authToken: string | undefined,
): Promise<{ guard: GuardOptions; hostPort: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const guard: GuardOptions = {
    hosts: hostPolicy(host, address.port, options.allowedHosts),
    origins: options.allowedOrigins ?? [],
    ...(authToken !== undefined ? { authToken } : {}),
  };
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { guard, hostPort: `${shownHost}:${address.port}` };
}
