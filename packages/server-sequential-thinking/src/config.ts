import { ConfigError, type ConfigOf, configSource, defineOptions, formatBytes, parse } from '@mcpkit/protocol-core';
import { DEFAULT_CHAIN_LIMITS } from './chains/types.js';
import { DEFAULT_LIMITS } from './history.js';

/** A PostgreSQL connection string; the message never repeats the value (it may hold a password). */
function databaseUrl(raw: string): string {
  let protocol: string | undefined;
  try {
    protocol = new URL(raw).protocol;
  } catch {}
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new Error('expected a postgres:// or postgresql:// URL, such as postgres://user:password@host:5432/database?sslmode=verify-full');
  }
  return raw;
}

export const options = defineOptions({
  'max-history': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_MAX_HISTORY',
    valueName: 'n',
    description: 'Thoughts kept per session; the oldest are dropped beyond it',
    default: DEFAULT_LIMITS.maxHistory,
    parse: parse.int({ min: 1, max: 1_000_000 }),
  },
  'max-history-bytes': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_MAX_HISTORY_BYTES',
    valueName: 'size',
    description: 'UTF-8 bytes of thoughts kept per session (e.g. 8mb); the oldest are dropped beyond it',
    default: DEFAULT_LIMITS.maxHistoryBytes,
    defaultLabel: '8mb',
    parse: parse.bytes,
  },
  'max-thought-bytes': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_MAX_THOUGHT_BYTES',
    valueName: 'size',
    description: 'Largest thought accepted, in UTF-8 bytes (e.g. 128kb); a larger one is an error and is not recorded',
    default: DEFAULT_LIMITS.maxThoughtBytes,
    defaultLabel: '128kb, at most --max-history-bytes',
    parse: parse.bytes,
  },
  storage: {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_STORAGE',
    valueName: 'kind',
    description:
      'Where the thought chains of 2026-07-28 clients over HTTP live: memory (this process) or postgres (a PostgreSQL database that replicas share; needs --database-url)',
    default: 'memory',
    parse: parse.oneOf(['memory', 'postgres'] as const),
  },
  'database-url': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_DATABASE_URL',
    valueName: 'url',
    description:
      'PostgreSQL connection string for --storage postgres (postgres://user:password@host:5432/db?sslmode=verify-full); its password is never logged or shown',
    parse: databaseUrl,
  },
  'chain-ttl': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_CHAIN_TTL',
    valueName: 'duration',
    description: 'A thought chain unused this long is forgotten (its handle then starts nothing)',
    default: DEFAULT_CHAIN_LIMITS.ttlMs,
    defaultLabel: '1h',
    parse: parse.duration,
  },
  'max-chains': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_MAX_CHAINS',
    valueName: 'n',
    description: 'Thought chains kept at most (each up to --max-history-bytes); beyond it, the least recently used is forgotten',
    default: DEFAULT_CHAIN_LIMITS.maxChains,
    parse: parse.int({ min: 1, max: 10_000_000 }),
  },
  'pool-size': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_POOL_SIZE',
    valueName: 'n',
    description: 'Most database connections this process opens with --storage postgres',
    default: 10,
    parse: parse.int({ min: 1, max: 1000 }),
  },
  'database-timeout': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_DATABASE_TIMEOUT',
    valueName: 'duration',
    description: 'With --storage postgres, how long one database statement or connection attempt may take before the call fails',
    default: 10_000,
    defaultLabel: '10s',
    parse: parse.duration,
  },
  'disable-thought-logging': {
    type: 'boolean',
    env: 'DISABLE_THOUGHT_LOGGING',
    description: 'Do not draw each thought on stderr',
  },
});

export type SequentialThinkingConfig = ConfigOf<typeof options>;

export interface Limits {
  maxHistory: number;
  maxHistoryBytes: number;
  maxThoughtBytes: number;
}

/**
 * The history limits, checked against each other. A thought limit left at its default is lowered to
 * a smaller byte budget; one given explicitly above the budget is a `ConfigError` naming both
 * settings, since a thought that large would be dropped as soon as it was recorded.
 */
export function resolveLimits(config: SequentialThinkingConfig): Limits {
  const { maxHistory, maxHistoryBytes } = config;
  let { maxThoughtBytes } = config;
  if (maxThoughtBytes > maxHistoryBytes) {
    const thought = configSource(config, 'maxThoughtBytes');
    if (thought.source === 'default') {
      maxThoughtBytes = maxHistoryBytes;
    } else {
      const budget = configSource(config, 'maxHistoryBytes').name ?? '--max-history-bytes';
      throw new ConfigError(
        `${thought.name} (${formatBytes(maxThoughtBytes, { exact: true })}) must not exceed ${budget} (${formatBytes(maxHistoryBytes, { exact: true })}): a thought that large could never be kept`,
        thought.name,
      );
    }
  }
  return { maxHistory, maxHistoryBytes, maxThoughtBytes };
}
