import { defineOptions, parse } from '@mcpkit/protocol-core';
import { checkGraphName, DEFAULT_GRAPH } from './store/postgres/graphName.js';

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

function graphName(raw: string): string {
  const bad = checkGraphName(raw);
  if (bad) throw new Error(bad);
  return raw;
}

export const options = defineOptions({
  storage: {
    type: 'string',
    env: 'MEMORY_STORAGE',
    valueName: 'kind',
    description:
      'Where the graph lives: file (one JSONL file, the reference format) or postgres (a PostgreSQL database that many processes and machines share; needs --database-url)',
    default: 'file',
    parse: parse.oneOf(['file', 'postgres'] as const),
  },
  'database-url': {
    type: 'string',
    env: 'MEMORY_DATABASE_URL',
    valueName: 'url',
    description:
      'PostgreSQL connection string for --storage postgres (postgres://user:password@host:5432/db?sslmode=verify-full); its password is never logged or shown',
    parse: databaseUrl,
  },
  graph: {
    type: 'string',
    env: 'MEMORY_GRAPH',
    valueName: 'name',
    description: 'Which named graph of the database to use with --storage postgres (1-200 characters); graphs never mix',
    default: DEFAULT_GRAPH,
    parse: graphName,
  },
  'graph-per-user': {
    type: 'boolean',
    env: 'MEMORY_GRAPH_PER_USER',
    description:
      'One graph per signed-in user (needs --oauth-issuer): the access token\'s subject picks a sibling file of --memory-path, or a graph "<graph>/user:<hash>" with --storage postgres',
  },
  'pool-size': {
    type: 'string',
    env: 'MEMORY_POOL_SIZE',
    valueName: 'n',
    description:
      "Most database connections this process's pool opens with --storage postgres, for all its graphs (with --graph-per-user, every user's); one LISTEN connection comes on top while a client is subscribed",
    default: 10,
    parse: parse.int({ min: 1, max: 1000 }),
  },
  'database-timeout': {
    type: 'string',
    env: 'MEMORY_DATABASE_TIMEOUT',
    valueName: 'duration',
    description:
      'With --storage postgres, how long one database statement or connection attempt may take before the call fails with an error (a database that hangs never hangs a call)',
    default: 10_000,
    defaultLabel: '10s',
    parse: parse.duration,
  },
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
