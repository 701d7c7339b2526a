import { defineOptions, parse } from '@mcpkit/protocol-core';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_MS } from './constants.js';
import { parseAllowHost } from './net/policy.js';

function proxyUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`"${raw}" is not a URL (e.g. http://proxy.example.com:8080)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`"${raw}" must be an http:// or https:// proxy URL`);
  return url.href;
}

export const options = defineOptions({
  'user-agent': {
    type: 'string',
    env: 'FETCH_USER_AGENT',
    valueName: 'string',
    description: 'Custom User-Agent for every request (replaces both default agents)',
    parse: parse.nonEmpty,
  },
  'ignore-robots-txt': {
    type: 'boolean',
    env: 'FETCH_IGNORE_ROBOTS_TXT',
    description: 'Do not check robots.txt before tool fetches',
  },
  'proxy-url': {
    type: 'string',
    env: 'FETCH_PROXY_URL',
    valueName: 'url',
    description: 'Send every request through this HTTP(S) proxy',
    parse: proxyUrl,
  },
  'allow-private-network': {
    type: 'boolean',
    env: 'FETCH_ALLOW_PRIVATE_NETWORK',
    description: 'Allow loopback, private, link-local and other non-public destinations (cloud metadata stays blocked)',
  },
  'allow-host': {
    type: 'string',
    multiple: true,
    env: 'FETCH_ALLOW_HOSTS',
    valueName: 'host[:port]',
    description: 'Allow this host (or host and port) whatever it resolves to, e.g. localhost:8080',
    parse: parseAllowHost,
  },
  timeout: {
    type: 'string',
    env: 'FETCH_TIMEOUT',
    valueName: 'duration',
    description: 'Deadline for one fetch: redirects, body and conversion included (e.g. 30s, 2m)',
    default: DEFAULT_TIMEOUT_MS,
    defaultLabel: '30s',
    parse: parse.duration,
  },
  'max-bytes': {
    type: 'string',
    env: 'FETCH_MAX_BYTES',
    valueName: 'size',
    description: 'Largest response body accepted, after decompression (e.g. 10mb)',
    default: DEFAULT_MAX_BYTES,
    defaultLabel: '10mb',
    parse: parse.bytes,
  },
  'max-redirects': {
    type: 'string',
    env: 'FETCH_MAX_REDIRECTS',
    valueName: 'n',
    description: 'Redirects followed at most',
    default: DEFAULT_MAX_REDIRECTS,
    parse: parse.int({ min: 0, max: 100 }),
  },
});
