import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';

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
 * The host names a request may carry in `Host` when the server is bound to `bindHost`: the loopback
 * names for a loopback bind; for a wildcard bind those plus every local interface address; otherwise
 * the bound name itself. `extra` adds names a reverse proxy forwards (`--allowed-host`).
 */
export function allowedHostnames(bindHost: string, extra: readonly string[] = []): Set<string> {
  const names = new Set<string>(extra.map((h) => bracket(h.trim())));
  if (isLoopbackHost(bindHost) || isWildcardHost(bindHost)) for (const n of LOOPBACK_NAMES) names.add(n);
  if (isLoopbackHost(bindHost)) names.add(bracket(bindHost));
  else if (isWildcardHost(bindHost)) {
    for (const list of Object.values(networkInterfaces())) for (const nic of list ?? []) names.add(bracket(nic.address));
  } else names.add(bracket(bindHost));
  return names;
}

function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

export type Refusal = { status: number; message: string; headers?: Record<string, string> };

export interface GuardOptions {
  hostnames: Set<string>;
  /** Exact origins allowed besides loopback ones (`--allowed-origin`). */
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
export function checkRequest(req: IncomingMessage, { hostnames, origins, authToken }: GuardOptions): Refusal | undefined {
  const host = req.headers.host;
  const hostname = host ? hostnameOf(host) : undefined;
  if (!hostname || !hostnames.has(hostname)) {
    return { status: 403, message: `Forbidden: Host header ${JSON.stringify(host ?? '')} is not allowed` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let ok = origins.includes(origin);
    if (!ok) {
      try {
        const url = new URL(origin);
        ok = (url.protocol === 'http:' || url.protocol === 'https:') && hostnames.has(url.hostname.toLowerCase());
      } catch {
        ok = false;
      }
    }
    if (!ok) return { status: 403, message: `Forbidden: Origin ${JSON.stringify(origin)} is not allowed` };
  }
  if (authToken !== undefined) {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    if (!match?.[1] || !timingSafeEqual(digest(match[1].trim()), digest(authToken))) {
      return {
        status: 401,
        message: 'Unauthorized: a valid bearer token is required',
        headers: { 'WWW-Authenticate': 'Bearer realm="mcp", error="invalid_token"' },
      };
    }
  }
  return undefined;
}
