import { defineOptions, parse } from '@mcpkit/protocol-core';

export const options = defineOptions({
  'max-history': {
    type: 'string',
    env: 'SEQUENTIAL_THINKING_MAX_HISTORY',
    valueName: 'n',
    description: 'Thoughts kept per session; the oldest are dropped beyond it',
    default: 1000,
    parse: parse.int({ min: 1, max: 1_000_000 }),
  },
  'disable-thought-logging': {
    type: 'boolean',
    env: 'DISABLE_THOUGHT_LOGGING',
    description: 'Do not draw each thought on stderr',
  },
});
