import { ConfigError, type ConfigOf, configSource, defineOptions, formatBytes, parse } from '@mcpkit/protocol-core';
import { DEFAULT_LIMITS } from './history.js';

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
