import { defineOptions, parse } from '@mcpkit/protocol-core';

export const options = defineOptions({
  'memory-path': {
    type: 'string',
    env: 'MEMORY_FILE_PATH',
    valueName: 'file',
    description:
      'The knowledge-graph file (JSONL, the reference format); ~ is expanded, a relative path is taken from the working directory, missing folders are created',
    defaultLabel: '<data folder>/mcpkit-memory/memory.jsonl',
  },
  'max-name-length': {
    type: 'string',
    env: 'MEMORY_MAX_NAME_LENGTH',
    valueName: 'chars',
    description: 'Longest entity name, entity type, relation endpoint or relation type accepted',
    default: 1000,
    parse: parse.int({ min: 1, max: 1_000_000 }),
  },
  'max-observation-length': {
    type: 'string',
    env: 'MEMORY_MAX_OBSERVATION_LENGTH',
    valueName: 'chars',
    description: 'Longest observation accepted',
    default: 10_000,
    parse: parse.int({ min: 1, max: 10_000_000 }),
  },
  'max-items-per-call': {
    type: 'string',
    env: 'MEMORY_MAX_ITEMS_PER_CALL',
    valueName: 'n',
    description: 'Most entities, relations or observations one create/add call may carry',
    default: 1000,
    parse: parse.int({ min: 1, max: 1_000_000 }),
  },
  'lock-stale': {
    type: 'string',
    env: 'MEMORY_LOCK_STALE',
    valueName: 'duration',
    description:
      'Take over the file lock after this long when its owner cannot be checked (another host); on this host a lock whose process is gone (dead, or its pid reused) is taken over at once',
    default: 10_000,
    defaultLabel: '10s',
    parse: parse.duration,
  },
  'lock-timeout': {
    type: 'string',
    env: 'MEMORY_LOCK_TIMEOUT',
    valueName: 'duration',
    description:
      'How long a tool call waits for the file lock held by another process before it fails with an error (start-up never waits for it)',
    default: 30_000,
    defaultLabel: '30s',
    parse: parse.duration,
  },
});
