import { parseAllowHost } from '@mcpkit/net/policy';
import { defineOptions, parse } from '@mcpkit/protocol-core';
import { PROFILES } from './context.js';

/** `--gzip-max-fetch-time`: a duration (`30s`, `500ms`), where a bare number is milliseconds like the reference's `GZIP_MAX_FETCH_TIME_MILLIS`. */
function parseMillis(raw: string): number {
  const value = raw.trim();
  if (/^\d+$/.test(value)) {
    const ms = Number(value);
    if (!Number.isSafeInteger(ms) || ms <= 0) throw new Error(`"${raw}" must be a positive number of milliseconds`);
    return ms;
  }
  return parse.duration(value);
}

/** `--gzip-allowed-domains`: one or more comma-separated host names (each allows its subdomains too). */
function parseDomains(raw: string): string[] {
  const domains = raw
    .split(',')
    .map((d) => d.trim().toLowerCase().replace(/\.$/, ''))
    .filter((d) => d.length > 0);
  if (domains.length === 0) throw new Error('must name at least one domain');
  for (const d of domains) {
    if (!/^[a-z0-9.-]+$/.test(d) && !/^\[[0-9a-f:.]+\]$/.test(d)) throw new Error(`"${d}" is not a domain name (e.g. example.com)`);
  }
  return domains;
}

/** `--request-state-key`: at least 32 bytes, the codec's minimum for an HMAC-SHA256 key. */
function parseStateKey(raw: string): string {
  if (Buffer.byteLength(raw, 'utf8') < 32) throw new Error('must be at least 32 bytes long');
  return raw;
}

/** This server's own flags; `runCli` adds the transport flags every mcpkit bin has. Parsed once, passed down. */
export const options = defineOptions({
  profile: {
    type: 'string',
    env: 'EVERYTHING_PROFILE',
    valueName: 'name',
    description:
      'Which contract to serve: current (npm @modelcontextprotocol/server-everything@2026.8.31, its latest: kebab-case tools, tasks), legacy (npm 2025.11.25, camelCase tools) or conformance (what @modelcontextprotocol/conformance expects)',
    default: 'current',
    parse: parse.oneOf(PROFILES),
  },
  'show-env-secrets': {
    type: 'boolean',
    env: 'EVERYTHING_SHOW_ENV_SECRETS',
    description: 'printEnv / get-env show the values of secret-looking variables (KEY, TOKEN, SECRET, PASSWORD, …) instead of [redacted]',
    default: false,
  },
  // The SSRF policy of `zip` (legacy) and `gzip-file-as-resource` (current), shared with mcp-server-fetch: @mcpkit/net's
  // `networkOptions(…)`, written out so that a start loads only the policy, not the HTTP client (loaded by the first
  // download). test/download.test.ts holds the two equal.
  'allow-private-network': {
    type: 'boolean',
    env: 'EVERYTHING_ALLOW_PRIVATE_NETWORK',
    description: 'Allow loopback, private, link-local and other non-public destinations (cloud metadata stays blocked)',
  },
  'allow-host': {
    type: 'string',
    multiple: true,
    env: 'EVERYTHING_ALLOW_HOSTS',
    valueName: 'host[:port]',
    description: 'Allow this host (or host and port) whatever it resolves to, e.g. localhost:8080',
    parse: parseAllowHost,
  },
  'gzip-max-fetch-size': {
    type: 'string',
    env: 'GZIP_MAX_FETCH_SIZE',
    valueName: 'size',
    description: 'Largest file gzip-file-as-resource fetches, e.g. 10mb (a bare number is bytes)',
    default: 10 * 1024 * 1024,
    defaultLabel: '10mb',
    parse: parse.bytes,
  },
  'gzip-max-fetch-time': {
    type: 'string',
    env: 'GZIP_MAX_FETCH_TIME_MILLIS',
    valueName: 'duration',
    description: 'Time limit of one gzip-file-as-resource download, e.g. 30s (a bare number is milliseconds)',
    default: 30_000,
    defaultLabel: '30s',
    parse: parseMillis,
  },
  'request-state-key': {
    type: 'string',
    env: 'EVERYTHING_REQUEST_STATE_KEY',
    valueName: 'secret',
    description:
      'HMAC key (32 characters or more) sealing the state of 2026-07-28 multi-round tool calls; give every process behind one address the same key (default: a random key per process)',
    parse: parseStateKey,
  },
  'gzip-allowed-domains': {
    type: 'string',
    multiple: true,
    env: 'GZIP_ALLOWED_DOMAINS',
    valueName: 'domain[,domain]',
    description: 'Hosts gzip-file-as-resource may fetch from, each with its subdomains (default: any host the network policy allows)',
    parse: parseDomains,
  },
});
