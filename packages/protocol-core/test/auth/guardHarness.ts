/**
 * What the guard tests share: a guard for RESOURCE against an issuer (the real provider, or a stand-in), with its
 * logs and a clock to move, and the checks of a refusal (which never carries the token).
 */
import { expect } from 'vitest';
import { type AuthCheck, type AuthGuard, type AuthGuardOptions, createAuthGuard } from '../../src/auth/guard.ts';
import { parseAuthConfig } from '../../src/auth/options.ts';
import { createLogger } from '../../src/logger.ts';

export const RESOURCE = 'http://127.0.0.1:3000/mcp';
export const OTHER_RESOURCE = 'http://127.0.0.1:3000/other-mcp';
export const SCOPES = { tools: { read_graph: 'memory:read', create_entities: 'memory:write' } };
export const resources = {
  [RESOURCE]: { scopes: ['memory:read', 'memory:write', 'mcp.write'] },
  [OTHER_RESOURCE]: { scopes: ['memory:read', 'memory:write'] },
};

export const call = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface Harness {
  guard: AuthGuard;
  logs: string[];
  clock: { offsetMs: number };
}

export function makeGuard(issuer: string, extraArgs: string[] = [], options: AuthGuardOptions = {}): Harness {
  const config = parseAuthConfig(['--oauth-issuer', issuer, '--oauth-audience', RESOURCE, ...extraArgs], {});
  if (!config) throw new Error('no config');
  const logs: string[] = [];
  const clock = { offsetMs: 0 };
  const guard = createAuthGuard(config, {
    scopes: SCOPES,
    resourceName: 'Test memory',
    logger: createLogger({ name: 'auth', level: 'debug', write: (line) => logs.push(line) }),
    now: () => Date.now() + clock.offsetMs,
    ...options,
  });
  return { guard, logs, clock };
}

/** A refusal, checked to be one and to carry no trace of the token. */
export function refused(result: AuthCheck, token: string | undefined, logs: string[] = []) {
  if (result.ok) throw new Error('expected a refusal');
  if (token) {
    expect(JSON.stringify(result)).not.toContain(token);
    expect(logs.join('\n')).not.toContain(token);
  }
  return result;
}

export function invalidToken(result: AuthCheck, token: string, logs: string[], description: RegExp) {
  const r = refused(result, token, logs);
  expect(r.status).toBe(401);
  expect(r.body.error).toBe('invalid_token');
  expect(r.body.error_description).toMatch(description);
  expect(r.headers['www-authenticate']).toMatch(
    /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:3000\/\.well-known\/oauth-protected-resource\/mcp", error="invalid_token"/,
  );
  return r;
}
