import { describe, expect, it } from 'vitest';
import { DEFAULT_ALGORITHMS, parseAuthConfig } from '../../src/auth/options.ts';
import { ConfigError } from '../../src/errors.ts';

const ISSUER = 'https://auth.example.com';
const AUDIENCE = 'https://mcp.example.com/mcp';
const base = ['--oauth-issuer', ISSUER, '--oauth-audience', AUDIENCE];

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('OAuth options', () => {
  it('leaves OAuth off without an issuer', () => {
    expect(parseAuthConfig([], {})).toBeUndefined();
  });

  it('parses a minimal configuration with safe defaults, frozen', () => {
    const config = parseAuthConfig(base, {});
    expect(config).toEqual({
      issuer: ISSUER,
      audience: AUDIENCE,
      introspect: false,
      algorithms: [...DEFAULT_ALGORITHMS],
      clockSkewSeconds: 30,
      scopeMap: {},
      allowHosts: [],
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config?.scopeMap)).toBe(true);
    expect(config?.algorithms.some((a) => a === 'none' || a.startsWith('HS'))).toBe(false);
  });

  it('reads the environment when flags are absent', () => {
    const config = parseAuthConfig([], {
      MCP_OAUTH_ISSUER: ISSUER,
      MCP_OAUTH_AUDIENCE: AUDIENCE,
      MCP_OAUTH_CLOCK_SKEW: '2m',
      MCP_OAUTH_ALGORITHMS: 'ES256,EdDSA',
      MCP_OAUTH_SCOPE_MAP: 'memory:read=mem.read,memory:write=mem.write',
    });
    expect(config?.clockSkewSeconds).toBe(120);
    expect(config?.algorithms).toEqual(['ES256', 'EdDSA']);
    expect(config?.scopeMap).toEqual({ 'memory:read': 'mem.read', 'memory:write': 'mem.write' });
  });

  it('requires an audience with an issuer', () => {
    expect(configError(() => parseAuthConfig(['--oauth-issuer', ISSUER], {})).flag).toBe('--oauth-audience');
  });

  it('refuses OAuth flags without an issuer, naming the flag', () => {
    const error = configError(() => parseAuthConfig(['--oauth-audience', AUDIENCE], {}));
    expect(error.flag).toBe('--oauth-issuer');
    expect(error.message).toContain('--oauth-audience');
  });

  it('refuses none and HS* algorithms as configuration errors', () => {
    for (const alg of ['none', 'HS256', 'hs512']) {
      const error = configError(() => parseAuthConfig([...base, '--oauth-algorithms', alg], {}));
      expect(error.flag).toBe('--oauth-algorithms');
    }
    expect(configError(() => parseAuthConfig([...base], { MCP_OAUTH_ALGORITHMS: 'RS256,none' })).flag).toBe('MCP_OAUTH_ALGORITHMS');
  });

  it('refuses plain http except on loopback, and fragments', () => {
    expect(configError(() => parseAuthConfig(['--oauth-issuer', 'http://auth.example.com', '--oauth-audience', AUDIENCE], {})).flag).toBe(
      '--oauth-issuer',
    );
    expect(configError(() => parseAuthConfig([...base, '--oauth-jwks-url', 'http://10.0.0.5/jwks'], {})).flag).toBe('--oauth-jwks-url');
    expect(configError(() => parseAuthConfig(['--oauth-issuer', ISSUER, '--oauth-audience', `${AUDIENCE}#x`], {})).flag).toBe(
      '--oauth-audience',
    );
    expect(parseAuthConfig(['--oauth-issuer', 'http://127.0.0.1:8080', '--oauth-audience', 'http://localhost:3000/mcp'], {})?.issuer).toBe(
      'http://127.0.0.1:8080',
    );
  });

  it('takes introspection client credentials from the environment only', () => {
    expect(configError(() => parseAuthConfig([...base, '--oauth-introspect'], {})).flag).toBe('MCP_OAUTH_CLIENT_ID');
    expect(configError(() => parseAuthConfig([...base, '--oauth-introspect'], { MCP_OAUTH_CLIENT_ID: 'rs' })).flag).toBe(
      'MCP_OAUTH_CLIENT_SECRET',
    );
    const config = parseAuthConfig([...base, '--oauth-introspect'], { MCP_OAUTH_CLIENT_ID: 'rs', MCP_OAUTH_CLIENT_SECRET: 's3cret' });
    expect(config?.client).toEqual({ id: 'rs', secret: 's3cret' });
    expect(() => parseAuthConfig([...base, '--oauth-client-secret', 'x'], {})).toThrow(ConfigError);
    const env = { MCP_OAUTH_CLIENT_ID: 'rs', MCP_OAUTH_CLIENT_SECRET: 's3cret' };
    expect(configError(() => parseAuthConfig([...base, '--oauth-introspect', '--oauth-jwks-url', `${ISSUER}/jwks`], env)).flag).toBe(
      '--oauth-jwks-url',
    );
  });

  it('checks clock skew, scope renames and allowed hosts', () => {
    expect(configError(() => parseAuthConfig([...base, '--oauth-clock-skew', '10m'], {})).flag).toBe('--oauth-clock-skew');
    expect(configError(() => parseAuthConfig([...base, '--oauth-scope-map', 'memory:read'], {})).flag).toBe('--oauth-scope-map');
    expect(configError(() => parseAuthConfig([...base, '--oauth-scope-map', 'a=b', '--oauth-scope-map', 'a=c'], {})).flag).toBe(
      '--oauth-scope-map',
    );
    expect(configError(() => parseAuthConfig([...base, '--oauth-allow-host', 'a b'], {})).flag).toBe('--oauth-allow-host');
    const config = parseAuthConfig([...base, '--oauth-allow-host', '10.0.0.5:8443', '--oauth-clock-skew', '5s'], {});
    expect(config?.allowHosts).toEqual([{ host: '10.0.0.5', port: 8443 }]);
    expect(config?.clockSkewSeconds).toBe(5);
  });

  it('takes --oauth-require-typ (off by default) as a media type, and refuses it with introspection', () => {
    expect(parseAuthConfig(base, {})?.requireTyp).toBeUndefined();
    expect(parseAuthConfig([...base, '--oauth-require-typ', 'at+jwt'], {})?.requireTyp).toBe('at+jwt');
    expect(parseAuthConfig(base, { MCP_OAUTH_REQUIRE_TYP: 'application/at+jwt' })?.requireTyp).toBe('application/at+jwt');
    expect(configError(() => parseAuthConfig([...base, '--oauth-require-typ', 'at jwt'], {})).flag).toBe('--oauth-require-typ');
    expect(configError(() => parseAuthConfig(['--oauth-require-typ', 'at+jwt'], {})).flag).toBe('--oauth-issuer');
    const env = { MCP_OAUTH_CLIENT_ID: 'rs', MCP_OAUTH_CLIENT_SECRET: 's3cret' };
    expect(configError(() => parseAuthConfig([...base, '--oauth-introspect', '--oauth-require-typ', 'at+jwt'], env)).flag).toBe(
      '--oauth-require-typ',
    );
  });
});
