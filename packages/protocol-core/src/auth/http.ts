/**
 * Every request the resource server makes to its authorization server (metadata, JWKS,
 * introspection) goes through one `@mcpkit/net` client: the issuer's own host is trusted (operator
 * configuration), any other host must pass the SSRF policy (`--oauth-allow-host` to allow a private
 * one), plain http only on loopback, no redirects, small bodies, short deadlines.
 */
import {
  BlockedDestinationError,
  createHttpClient,
  HttpError,
  parseIp,
  type Resolver,
  systemResolver,
  urlHost,
  urlPort,
} from '@mcpkit/net';
import type { FetchImplementation } from 'jose';
import type { AuthConfig } from './options.js';

/** The authorization server could not be asked (unreachable, refused by policy, bad answer): not the client's fault. */
export class AuthServerError extends Error {
  override readonly name = 'AuthServerError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

export interface AuthHttpOptions {
  resolve?: Resolver;
  /** Deadline of one request to the authorization server. Default 5 s. */
  timeoutMs?: number;
}

interface JsonResponse {
  status: number;
  /** The parsed body of a 2xx JSON answer, else `undefined`. */
  json: unknown;
}

export interface AuthHttp {
  getJson(url: string): Promise<JsonResponse>;
  postForm(url: string, form: Record<string, string>, headers: Record<string, string>): Promise<JsonResponse>;
  /** jose's `customFetch` for `createRemoteJWKSet`, through the same client. */
  readonly jwksFetch: FetchImplementation;
  close(): Promise<void>;
}

const MAX_BYTES = 512 * 1024;

function isLoopback(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || parseIp(url.hostname)?.range() === 'loopback';
}

/**
 * Where a URL points, for a message: its origin, or, for a URL without one (`file:`, `data:`), its scheme and
 * path, never its query or credentials.
 */
export function shownUrl(raw: string | URL): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'an invalid URL';
  }
  if (url.origin !== 'null') return url.origin;
  return url.protocol === 'data:' ? 'a data: URL' : `${url.protocol}//${url.host}${url.pathname}`;
}

/** Throws unless `url` is https (or plain http on a loopback host). */
export function requireSecure(url: URL): void {
  if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopback(url))) return;
  throw new Error(`${shownUrl(url)} is not https (plain http is accepted only on a loopback address)`);
}

async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

export function createAuthHttp(config: AuthConfig, options: AuthHttpOptions = {}): AuthHttp {
  const issuer = new URL(config.issuer);
  const client = createHttpClient({
    policy: {
      allowPrivateNetwork: false,
      allowHosts: [{ host: urlHost(issuer), port: urlPort(issuer) }, ...config.allowHosts],
      name: 'the OAuth resource server',
    },
    resolve: options.resolve ?? systemResolver,
    timeoutMs: options.timeoutMs ?? 5000,
    maxBytes: MAX_BYTES,
    maxRedirects: 0,
  });

  async function send(url: string, init: { method: string; headers: Record<string, string>; body?: Uint8Array; signal?: AbortSignal }) {
    try {
      const response = await client.request(url, { ...init, checkUrl: requireSecure, maxRedirects: 0 });
      const body = await readAll(response.body);
      return { status: response.status, headers: response.headers, body };
    } catch (error) {
      if (error instanceof HttpError && error.kind === 'blocked') {
        const blocked = error.cause instanceof BlockedDestinationError || /refused to connect/.test(error.message);
        const host = new URL(url).host;
        throw new AuthServerError(
          blocked
            ? `refused to contact ${shownUrl(url)}: it is not the issuer's host and resolves to a private address; allow it with --oauth-allow-host ${host}`
            : `refused to contact ${shownUrl(url)}: ${error.message}`,
          { cause: error },
        );
      }
      throw new AuthServerError(`could not reach ${shownUrl(url)}: ${error instanceof Error ? error.message : String(error)}`, {
        cause: error,
      });
    }
  }

  function asJson(status: number, headers: Record<string, string>, body: Buffer): JsonResponse {
    if (status < 200 || status >= 300) return { status, json: undefined };
    if (!/json/i.test(headers['content-type'] ?? 'application/json')) return { status, json: undefined };
    try {
      return { status, json: JSON.parse(body.toString('utf8')) as unknown };
    } catch {
      return { status, json: undefined };
    }
  }

  return {
    async getJson(url) {
      const r = await send(url, { method: 'GET', headers: { accept: 'application/json' } });
      return asJson(r.status, r.headers, r.body);
    },
    async postForm(url, form, headers) {
      const body = new TextEncoder().encode(new URLSearchParams(form).toString());
      const r = await send(url, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
      return asJson(r.status, r.headers, r.body);
    },
    jwksFetch: async (url, init) => {
      const headers: Record<string, string> = {};
      init.headers.forEach((value, key) => {
        headers[key] = value;
      });
      const r = await send(url, { method: 'GET', headers, signal: init.signal });
      const empty = r.status === 204 || r.status === 304 || r.status < 200;
      return new Response(empty ? null : new Uint8Array(r.body), { status: r.status < 200 ? 502 : r.status, headers: r.headers });
    },
    close: () => client.close(),
  };
}
