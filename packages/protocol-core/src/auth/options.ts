/**
 * The OAuth resource-server flags and their checks: `authOptions` joins a bin's option spec,
 * `authConfigFrom` turns the parsed values (and the client credentials, from the environment only)
 * into a frozen `AuthConfig`, or `undefined` when OAuth is off.
 */
import { type AllowedHost, parseAllowHost, parseIp } from '@mcpkit/net/policy';
import { type ConfigOf, configSource, defineOptions, parse, parseConfig } from '../config.js';
import { ConfigError } from '../errors.js';

/** Algorithms accepted when `--oauth-algorithms` is not given: asymmetric signatures only. */
export const DEFAULT_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

const MAX_CLOCK_SKEW_MS = 5 * 60_000;

/** A media type or its subtype alone (RFC 6838 restricted names), as JWS `typ` carries it. */
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*)?$/;

/** RFC 6749 §3.3 `scope-token`: printable ASCII except space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export interface AuthConfig {
  /** The authorization server's issuer identifier, exactly as its metadata names it. */
  readonly issuer: string;
  /** This server's resource identifier (RFC 8707/9728): the canonical URL of the MCP endpoint. */
  readonly audience: string;
  /** Overrides the `jwks_uri` of the issuer's metadata. */
  readonly jwksUrl?: string;
  /** Validate every token by introspection (RFC 7662) instead of as a JWT. */
  readonly introspect: boolean;
  /** The resource server's client credentials for introspection (`MCP_OAUTH_CLIENT_ID`/`_SECRET`). */
  readonly client?: { readonly id: string; readonly secret: string };
  /** JWS algorithms accepted in access tokens. */
  readonly algorithms: readonly string[];
  /** Tolerance on `exp`/`nbf`/`iat`, in seconds. */
  readonly clockSkewSeconds: number;
  /** The JWT header `typ` a token must have (`at+jwt`, RFC 9068; compared without `application/`, any case). */
  readonly requireTyp?: string;
  /** The server's scope name → the operator's name for it. */
  readonly scopeMap: Readonly<Record<string, string>>;
  /** Hosts the JWKS or introspection endpoint may be on although private (the issuer's host always may). */
  readonly allowHosts: readonly AllowedHost[];
}

function isLoopback(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return parseIp(url.hostname)?.range() === 'loopback';
}

/**
 * An absolute `https` URL without fragment (plain `http` only on a loopback host, for development),
 * returned as given.
 */
function endpointUrl(what: string): (raw: string) => string {
  return (raw: string) => {
    const value = raw.trim();
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(`"${raw}" is not an absolute URL`);
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url)))
      throw new Error(`${what} must use https (plain http only on a loopback address), got "${raw}"`);
    if (url.hash || value.includes('#')) throw new Error(`${what} must not have a fragment`);
    if (url.username || url.password) throw new Error(`${what} must not carry credentials`);
    return value;
  };
}

function parseAlgorithm(raw: string): string {
  const alg = raw.trim();
  if (alg.toLowerCase() === 'none') throw new Error('"none" (unsigned tokens) cannot be allowed');
  if (/^HS\d+$/i.test(alg)) throw new Error(`${alg} is symmetric (a shared secret); only asymmetric algorithms can be allowed`);
  if (!(DEFAULT_ALGORITHMS as readonly string[]).includes(alg)) throw new Error(`"${alg}" is not one of ${DEFAULT_ALGORITHMS.join(', ')}`);
  return alg;
}

function parseScopeRename(raw: string): readonly [string, string] {
  const m = /^([^=\s]+)=([^=\s]+)$/.exec(raw.trim());
  if (!m) throw new Error(`"${raw}" is not OLD=NEW (e.g. memory:read=mcp.memory.read)`);
  const [, from, to] = m as unknown as [string, string, string];
  for (const scope of [from, to]) if (!SCOPE_TOKEN.test(scope)) throw new Error(`"${scope}" is not a valid scope name`);
  return [from, to] as const;
}

export const authOptions = defineOptions({
  'oauth-issuer': {
    type: 'string',
    env: 'MCP_OAUTH_ISSUER',
    valueName: 'URL',
    description: 'Accept OAuth 2.1 access tokens from this authorization server (its issuer URL); turns OAuth on',
    parse: endpointUrl('--oauth-issuer'),
  },
  'oauth-audience': {
    type: 'string',
    env: 'MCP_OAUTH_AUDIENCE',
    valueName: 'URL',
    description: "This server's resource identifier: the public URL of its MCP endpoint (required with --oauth-issuer)",
    parse: endpointUrl('--oauth-audience'),
  },
  'oauth-jwks-url': {
    type: 'string',
    env: 'MCP_OAUTH_JWKS_URL',
    valueName: 'URL',
    description: "Where the issuer's signing keys are, when not the jwks_uri of its metadata",
    parse: endpointUrl('--oauth-jwks-url'),
  },
  'oauth-introspect': {
    type: 'boolean',
    env: 'MCP_OAUTH_INTROSPECT',
    description:
      'Check every token with the issuer (RFC 7662 introspection; opaque tokens, instant revocation); client credentials from MCP_OAUTH_CLIENT_ID and MCP_OAUTH_CLIENT_SECRET',
  },
  'oauth-algorithms': {
    type: 'string',
    multiple: true,
    env: 'MCP_OAUTH_ALGORITHMS',
    valueName: 'ALG',
    description: 'JWS algorithms accepted in access tokens (none and HS* are refused)',
    default: [...DEFAULT_ALGORITHMS],
    defaultLabel: 'RS*, PS*, ES*, EdDSA',
    parse: parseAlgorithm,
  },
  'oauth-clock-skew': {
    type: 'string',
    env: 'MCP_OAUTH_CLOCK_SKEW',
    valueName: 'DURATION',
    description: 'Clock difference tolerated on token expiry and issue times',
    default: 30_000,
    defaultLabel: '30s',
    parse: (raw: string): number => {
      const ms = parse.duration(raw);
      if (ms > MAX_CLOCK_SKEW_MS) throw new Error(`"${raw}" is more than 5m`);
      return ms;
    },
  },
  'oauth-require-typ': {
    type: 'string',
    env: 'MCP_OAUTH_REQUIRE_TYP',
    valueName: 'TYP',
    description:
      'Refuse JWTs whose header typ is not this (at+jwt, RFC 9068: an ID token is then never taken for an access token); off by default, as Keycloak sends typ JWT',
    parse: (raw: string): string => {
      const typ = raw.trim();
      if (!MEDIA_TYPE.test(typ)) throw new Error(`"${raw}" is not a media type such as at+jwt or application/at+jwt`);
      return typ;
    },
  },
  'oauth-scope-map': {
    type: 'string',
    multiple: true,
    env: 'MCP_OAUTH_SCOPE_MAP',
    valueName: 'OLD=NEW',
    description: "Rename one of the server's scopes to the name your authorization server uses",
    parse: parseScopeRename,
  },
  'oauth-allow-host': {
    type: 'string',
    multiple: true,
    env: 'MCP_OAUTH_ALLOW_HOST',
    valueName: 'HOST[:PORT]',
    description: "Allow a JWKS or introspection endpoint on this private host (the issuer's own host is always allowed)",
    parse: parseAllowHost,
  },
});

export type AuthOptionValues = ConfigOf<typeof authOptions>;

/**
 * Checks the values of `authOptions` together and freezes them. `undefined` when no issuer is set
 * (OAuth off); any other OAuth flag without an issuer is a mistake and throws `ConfigError`.
 */
export function authConfigFrom(values: AuthOptionValues, env: NodeJS.ProcessEnv): AuthConfig | undefined {
  const name = (key: string, flag: string) => {
    const { source, name: where } = configSource(values, key);
    return source === 'env' && where ? where : flag;
  };
  if (values.oauthIssuer === undefined) {
    const stray = (
      [
        ['oauthAudience', '--oauth-audience'],
        ['oauthJwksUrl', '--oauth-jwks-url'],
        ['oauthIntrospect', '--oauth-introspect'],
        ['oauthAlgorithms', '--oauth-algorithms'],
        ['oauthClockSkew', '--oauth-clock-skew'],
        ['oauthRequireTyp', '--oauth-require-typ'],
        ['oauthScopeMap', '--oauth-scope-map'],
        ['oauthAllowHost', '--oauth-allow-host'],
      ] as const
    ).find(([key]) => configSource(values, key).source !== 'default');
    if (stray) throw new ConfigError(`${name(stray[0], stray[1])} needs --oauth-issuer`, '--oauth-issuer');
    return undefined;
  }
  if (values.oauthAudience === undefined)
    throw new ConfigError('--oauth-audience is required with --oauth-issuer (the public URL of the MCP endpoint)', '--oauth-audience');

  let client: AuthConfig['client'];
  if (values.oauthIntrospect && values.oauthJwksUrl !== undefined)
    throw new ConfigError('--oauth-jwks-url has no use with --oauth-introspect (the issuer checks every token)', '--oauth-jwks-url');
  if (values.oauthIntrospect && values.oauthRequireTyp !== undefined)
    throw new ConfigError(
      `${name('oauthRequireTyp', '--oauth-require-typ')} has no use with --oauth-introspect (the token is not read as a JWT)`,
      '--oauth-require-typ',
    );
  if (values.oauthIntrospect) {
    const id = env.MCP_OAUTH_CLIENT_ID?.trim();
    const secret = env.MCP_OAUTH_CLIENT_SECRET;
    if (!id) throw new ConfigError('--oauth-introspect needs MCP_OAUTH_CLIENT_ID (the client id for introspection)', 'MCP_OAUTH_CLIENT_ID');
    if (!secret)
      throw new ConfigError(
        '--oauth-introspect needs MCP_OAUTH_CLIENT_SECRET (the client secret for introspection)',
        'MCP_OAUTH_CLIENT_SECRET',
      );
    client = Object.freeze({ id, secret });
  }

  const scopeMap: Record<string, string> = {};
  for (const [from, to] of values.oauthScopeMap) {
    if (from in scopeMap)
      throw new ConfigError(`${name('oauthScopeMap', '--oauth-scope-map')} renames "${from}" twice`, '--oauth-scope-map');
    scopeMap[from] = to;
  }
  const algorithms = [...new Set(values.oauthAlgorithms)];
  if (algorithms.length === 0) throw new ConfigError('--oauth-algorithms must name at least one algorithm', '--oauth-algorithms');

  return Object.freeze({
    issuer: values.oauthIssuer,
    audience: values.oauthAudience,
    ...(values.oauthJwksUrl !== undefined ? { jwksUrl: values.oauthJwksUrl } : {}),
    introspect: values.oauthIntrospect,
    ...(client ? { client } : {}),
    algorithms: Object.freeze(algorithms),
    clockSkewSeconds: values.oauthClockSkew / 1000,
    ...(values.oauthRequireTyp !== undefined ? { requireTyp: values.oauthRequireTyp } : {}),
    scopeMap: Object.freeze(scopeMap),
    allowHosts: Object.freeze([...values.oauthAllowHost]),
  });
}

/** `authOptions` parsed on their own (tests, or a bin with no other flags). */
export function parseAuthConfig(argv: readonly string[], env: NodeJS.ProcessEnv): AuthConfig | undefined {
  return authConfigFrom(parseConfig(authOptions, argv, env), env);
}
