/**
 * The few parts of `oidc-provider` (which ships no types) that the test authorization server uses.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface ResourceServerInfo {
    scope: string;
    audience?: string;
    accessTokenTTL?: number;
    accessTokenFormat?: 'opaque' | 'jwt';
    jwt?: { sign?: { alg?: string } };
  }

  export interface ProviderConfiguration {
    clients?: Record<string, unknown>[];
    jwks?: { keys: Record<string, unknown>[] };
    cookies?: { keys?: string[] };
    scopes?: string[];
    features?: Record<string, unknown>;
    pkce?: { required?: (ctx: unknown, client: unknown) => boolean };
    findAccount?: (ctx: unknown, id: string) => Promise<{ accountId: string; claims: () => Promise<Record<string, unknown>> }>;
    ttl?: Record<string, number | ((ctx: never, token: never) => number)>;
    [key: string]: unknown;
  }

  export const errors: { InvalidTarget: new (description?: string) => Error };

  export default class Provider {
    constructor(issuer: string, configuration?: ProviderConfiguration);
    readonly issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
