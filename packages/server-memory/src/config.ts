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
    description: 'Take over the file lock of a process that died holding it after this long (at least 2s)',
    default: 10_000,
    defaultLabel: '10s',
    parse: (raw: string) => {
      const ms = parse.duration(raw);
      if (ms < 2000) throw new Error(`"${raw}" is shorter than 2s`);
      return ms;
    },
  },
});
