import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseAllowedHost } from '../src/runner/hosts.js';
import { hostPolicy } from '../src/runner/security.js';

describe('hostPolicy', () => {
  it('accepts the loopback names and every interface address on the bound port only, for a wildcard bind', () => {
    const policy = hostPolicy('0.0.0.0', 4321);
    for (const name of ['localhost', '127.0.0.1', '[::1]']) expect(policy.get(name)).toEqual(new Set([4321]));
    const nic = Object.values(networkInterfaces())
      .flat()
      .find((n) => n && n.family === 'IPv4');
    if (nic) expect(policy.get(nic.address)).toEqual(new Set([4321]));
  });

  it('accepts only the bound name for a specific non-loopback bind', () => {
    expect([...hostPolicy('192.0.2.7', 80).entries()]).toEqual([['192.0.2.7', new Set([80])]]);
  });

  it('adds allowed hosts: without a port on any port, with one on that port besides the bound one', () => {
    const policy = hostPolicy('127.0.0.1', 3000, ['Proxy.Example', 'localhost:8080', '::1']);
    expect(policy.get('proxy.example')).toBe('any');
    expect(policy.get('localhost')).toEqual(new Set([8080, 3000]));
    expect(policy.get('[::1]')).toBe('any');
  });
});

describe('parseAllowedHost', () => {
  it.each([
    ['mcp.example.com', { hostname: 'mcp.example.com' }],
    ['mcp.example.com:443', { hostname: 'mcp.example.com', port: 443 }],
    ['[::1]:3000', { hostname: '[::1]', port: 3000 }],
    ['fe80::1', { hostname: '[fe80::1]' }],
  ])('parses %s', (entry, expected) => {
    expect(parseAllowedHost(entry)).toEqual(expected);
  });

  it.each(['', 'a b', 'evil@mcp.example.com', 'mcp.example.com:0', 'mcp.example.com:99999', '[::1', '[::1]x'])('refuses %j', (entry) => {
    expect(() => parseAllowedHost(entry)).toThrow(/is not a host name|invalid port/);
  });
});
