import { describe, expect, it } from 'vitest';
import { metadataUrls } from '../../src/auth/discovery.ts';
import { bearerChallenge, metadataPaths, metadataUrl, protectedResourceMetadata } from '../../src/auth/metadata.ts';
import { createScopePolicy } from '../../src/auth/scopes.ts';
import { ConfigError } from '../../src/errors.ts';

describe('protected resource metadata', () => {
  it('inserts the well-known prefix before the endpoint path (RFC 9728)', () => {
    expect(metadataPaths('https://mcp.example.com/mcp')).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(metadataPaths('https://mcp.example.com/team/a/mcp')[0]).toBe('/.well-known/oauth-protected-resource/team/a/mcp');
    expect(metadataPaths('https://mcp.example.com')).toEqual(['/.well-known/oauth-protected-resource']);
    expect(metadataUrl('https://mcp.example.com:8443/mcp')).toBe('https://mcp.example.com:8443/.well-known/oauth-protected-resource/mcp');
  });

  it('builds the document', () => {
    expect(
      protectedResourceMetadata({ resource: 'https://m/mcp', issuer: 'https://as', scopes: ['a', 'b'], resourceName: 'Memory' }),
    ).toEqual({
      resource: 'https://m/mcp',
      authorization_servers: ['https://as'],
      scopes_supported: ['a', 'b'],
      bearer_methods_supported: ['header'],
      resource_name: 'Memory',
    });
  });

  it('builds challenges with quoted parameters', () => {
    expect(bearerChallenge({ resourceMetadata: 'https://m/.well-known/oauth-protected-resource/mcp' })).toBe(
      'Bearer resource_metadata="https://m/.well-known/oauth-protected-resource/mcp"',
    );
    expect(
      bearerChallenge({
        resourceMetadata: 'https://m/x',
        error: 'insufficient_scope',
        description: 'needs "w" \\ now\n',
        scopes: ['a', 'b'],
      }),
    ).toBe('Bearer resource_metadata="https://m/x", error="insufficient_scope", error_description="needs \\"w\\" \\\\ now", scope="a b"');
  });
});

describe('authorization server metadata URLs', () => {
  it('tries RFC 8414 then OpenID Connect, with path insertion', () => {
    expect(metadataUrls('https://as.example.com')).toEqual([
      'https://as.example.com/.well-known/oauth-authorization-server',
      'https://as.example.com/.well-known/openid-configuration',
    ]);
    expect(metadataUrls('https://as.example.com/tenant1')).toEqual([
      'https://as.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://as.example.com/.well-known/openid-configuration/tenant1',
      'https://as.example.com/tenant1/.well-known/openid-configuration',
    ]);
  });
});

describe('scopes for tools', () => {
  const declaration = { tools: { read_graph: 'memory:read', create_entities: 'memory:write', both: ['memory:read', 'memory:write'] } };
  const call = (name: string, id = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });

  it('asks only tools/call for scopes', () => {
    const policy = createScopePolicy(declaration);
    expect(policy.required({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual([]);
    expect(policy.required(undefined)).toEqual([]);
    expect(policy.required(call('read_graph'))).toEqual(['memory:read']);
    expect(policy.missing(call('create_entities'), ['memory:read'])).toEqual(['memory:write']);
    expect(policy.missing(call('create_entities'), ['memory:write'])).toEqual([]);
    expect(policy.missing(call('both'), ['memory:read'])).toEqual(['memory:write']);
    expect(policy.missing(call('unlisted'), [])).toEqual([]);
    expect(policy.supported).toEqual(['memory:read', 'memory:write']);
  });

  it('checks every call of a batch', () => {
    const policy = createScopePolicy(declaration);
    expect(policy.missing([call('read_graph', 1), call('create_entities', 2)], ['memory:read'])).toEqual(['memory:write']);
  });

  it('applies a default scope to tools not listed', () => {
    expect(createScopePolicy({ ...declaration, defaultTool: 'memory:admin' }).missing(call('unlisted'), ['memory:read'])).toEqual([
      'memory:admin',
    ]);
  });

  it("renames scopes with the operator's map and refuses unknown names", () => {
    const policy = createScopePolicy(declaration, { 'memory:write': 'mcp.write' });
    expect(policy.required(call('create_entities'))).toEqual(['mcp.write']);
    expect(policy.supported).toEqual(['memory:read', 'mcp.write']);
    expect(() => createScopePolicy(declaration, { 'memory:wirte': 'x' })).toThrow(ConfigError);
  });
});
