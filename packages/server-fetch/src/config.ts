import { networkOptions, proxyOption } from '@mcpkit/net';
import { defineOptions, parse } from '@mcpkit/protocol-core';
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_REDIRECTS, DEFAULT_TIMEOUT_MS } from './constants.js';

const network = networkOptions({ allowPrivateNetwork: 'FETCH_ALLOW_PRIVATE_NETWORK', allowHosts: 'FETCH_ALLOW_HOSTS' });

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
  // The network policy's flags, shared with the other servers that fetch URLs (@mcpkit/net).
  ...proxyOption('FETCH_PROXY_URL'),
  ...network,
  // The reference fetch names its allow flag --allow-private-ips: a config written for it starts here too.
  'allow-private-network': { ...network['allow-private-network'], aliases: ['allow-private-ips'] },
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
