#!/usr/bin/env node
import { homedir } from 'node:os';
import { type CliApp, ConfigError, configSource, type Readiness, runCli } from '@mcpkit/protocol-core';
import { options } from './config.js';
import { listenToGraph, listenToUserGraphs } from './listen.js';
import { resolveMemoryPath, userMemoryPath } from './paths.js';
import { adoptReferenceFile } from './referenceFile.js';
import { MEMORY_SCOPES } from './scopes.js';
import { createMemoryServer, ForeignFileError, openFileStore, VERSION } from './server.js';
import { checkGraphName, DEFAULT_GRAPH, userGraphName } from './store/postgres/graphName.js';
import { memoryTasks } from './tasks.js';
import { timedStore } from './timedStore.js';
import { isTransferCommand } from './transfer/commands.js';
import { createUserGraphs, type UserGraphs } from './userGraphs.js';

const cli: CliApp<typeof options> = {
  bin: 'mcp-server-memory',
  version: VERSION,
  description:
    'Knowledge-graph memory MCP server: entities, relations and observations kept in one JSONL file (the reference format), safe with several processes on the same file, or in PostgreSQL (--storage postgres).',
  options,
  create: async (config, logger, { telemetry }) => {
    const limits = {
      maxNameLength: config.maxNameLength,
      maxObservationLength: config.maxObservationLength,
      maxItemsPerCall: config.maxItemsPerCall,
    };
    // `--graph-per-user`: a 2026 listen stream over HTTP hears its own user's graph (the runner's `listenBus`).
    const perUserApp = (users: UserGraphs, ready?: () => Promise<Readiness>) => {
      const listen = listenToUserGraphs(users, logger);
      return {
        ...(ready ? { ready } : {}),
        createServer: () => createMemoryServer({ users, limits, logger }),
        listenBus: listen.busFor,
        close: () => {
          listen.close();
          return users.close();
        },
        scopes: MEMORY_SCOPES,
      };
    };
    if (config.graphPerUser && config.oauthIssuer === undefined)
      throw new ConfigError('--graph-per-user needs --oauth-issuer: without OAuth there is no user to keep a graph for', 'graph-per-user');
    if (config.storage === 'postgres') {
      if (!config.databaseUrl) throw new ConfigError('--storage postgres needs --database-url or MEMORY_DATABASE_URL', 'database-url');
      // Loaded only here, so a file-store start never compiles the driver. No connection yet: the server starts
      // with the database down, and each call says so until it is back.
      if (config.graphPerUser) {
        const tooLong = checkGraphName(userGraphName(config.graph, '0'.repeat(32)));
        if (tooLong) throw new ConfigError(`--graph is too long for --graph-per-user (${tooLong}, with "/user:" and 32 more)`, 'graph');
        // Every user's graph runs on the process's one pool (--pool-size) and one LISTEN connection.
        const { openPostgresUserGraphs } = await import('./store/postgres/userGraphs.js');
        const users = openPostgresUserGraphs({
          url: config.databaseUrl,
          graph: config.graph,
          poolSize: config.poolSize,
          timeoutMs: config.databaseTimeout,
          logger,
        });
        logger.info(`one knowledge graph per user in PostgreSQL: graphs "${config.graph}/user:<hash of the subject>"`);
        return perUserApp(users, users.ping);
      }
      // The graph and its tasks (`memory_tasks`) on one pool: any replica answers another's tasks/get.
      const { openPostgresStoreWithTasks } = await import('./store/postgres/taskTable.js');
      const opened = openPostgresStoreWithTasks({
        url: config.databaseUrl,
        graph: config.graph,
        poolSize: config.poolSize,
        timeoutMs: config.databaseTimeout,
        logger,
      });
      const pgStore = timedStore(opened.store, 'postgres', telemetry);
      const tasks = memoryTasks({ shared: { store: opened.tasks, graph: config.graph }, logger });
      logger.info(`knowledge graph in PostgreSQL: ${pgStore.location}`);
      const listen = listenToGraph(pgStore, logger);
      return {
        createServer: (context) => createMemoryServer({ store: pgStore, limits, logger, tasks, ...(context ? { context } : {}) }),
        preflight: (message) => tasks.preflight(message),
        bus: listen.bus,
        // `/readyz`: 503 while the database does not answer.
        ready: pgStore.ping,
        close: () => {
          tasks.close();
          listen.close();
          return pgStore.close();
        },
        scopes: MEMORY_SCOPES,
      };
    }
    if (config.graph !== DEFAULT_GRAPH) {
      throw new ConfigError(
        '--graph selects a graph of the database and needs --storage postgres; for a separate file, use --memory-path',
        'graph',
      );
    }
    // The option also reads MEMORY_FILE_PATH (for --help and one parser); tell the two apart for the log line.
    const flag = configSource(config, 'memoryPath').source === 'flag' ? config.memoryPath : undefined;
    const where = { cwd: process.cwd(), home: homedir(), platform: process.platform, env: process.env };
    const { path, source } = resolveMemoryPath(flag, where, logger);
    if (config.graphPerUser) {
      const users = createUserGraphs({
        open: (key) =>
          openFileStore({
            path: userMemoryPath(path, key),
            logger,
            lockStaleMs: config.lockStale,
            lockTimeoutMs: config.lockTimeout,
            load: 'background',
            openWhenLocked: 'defer',
          }),
      });
      logger.info(`one knowledge graph file per user, next to ${path} (named after the hash of the user's subject)`);
      return perUserApp(users);
    }
    if (source === 'default') adoptReferenceFile(path, where, logger);
    logger.info(
      `knowledge graph file: ${path} (from ${source === 'flag' ? '--memory-path' : source === 'env' ? 'MEMORY_FILE_PATH' : 'the default location'})`,
    );
    let store: Awaited<ReturnType<typeof openFileStore>>;
    try {
      // Never wait for the load or another process's lock here: `initialize` is answered at once, calls wait for the graph.
      store = timedStore(
        await openFileStore({
          path,
          logger,
          lockStaleMs: config.lockStale,
          lockTimeoutMs: config.lockTimeout,
          load: 'background',
          openWhenLocked: 'defer',
        }),
        'file',
        telemetry,
      );
    } catch (error) {
      if (error instanceof ForeignFileError) throw new ConfigError(error.message);
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'ENOTDIR' || code === 'EISDIR' || code === 'EROFS' || code === 'ELOOP') {
        throw new ConfigError(`cannot use ${path} as the memory file: ${(error as Error).message}`);
      }
      throw error;
    }
    const listen = listenToGraph(store, logger);
    // Tasks in this process: a file-store server is one process, whatever number of clients it serves.
    const tasks = memoryTasks({ logger });
    return {
      createServer: (context) => createMemoryServer({ store, limits, logger, tasks, ...(context ? { context } : {}) }),
      preflight: (message) => tasks.preflight(message),
      bus: listen.bus,
      close: () => {
        tasks.close();
        listen.close();
        return store.close();
      },
      scopes: MEMORY_SCOPES,
    };
  },
  epilog: `The data folder is $XDG_DATA_HOME or ~/.local/share on Linux, %APPDATA% on Windows, ~/Library/Application Support
on macOS. The resolved file is printed on stderr at start.
Several processes may share one memory file: writes are locked and every process sees the others' changes.
A lock left by a process that is gone (dead, or its pid now used by another program) is taken over at once; start-up
never waits for a lock, a tool call waits up to --lock-timeout. A symbolic link is followed: the target is written.
The graph loads in the background: initialize is answered at once, and the first tool call waits for the load
(with notifications/progress when the call asks for them).
The file keeps the reference's JSONL format. Every change is first appended to <file>.wal (one fsync), then folded
into the file two seconds after the last write, as soon as the journal is large, and on exit; a program that reads
only the file (the reference) sees changes that late. Unreadable lines are moved to <file>.corrupt, never dropped.
With --storage postgres the graph lives in the database at --database-url (TLS through the URL's sslmode), one
named graph per --graph; the schema is created or migrated at start, and each tool call is one transaction.

Subcommands (each with its own --help):
  mcp-server-memory import <file.jsonl>   copy a memory file into a graph of the database (safe to repeat)
  mcp-server-memory export <file.jsonl>   write a graph of the database as a memory file (--force to replace one)`,
};

const [command, ...rest] = process.argv.slice(2);
// `import` and `export` (src/transfer) move a graph between a file and the database; anything else runs the server.
if (isTransferCommand(command)) {
  const { runTransfer } = await import('./transfer/cli.js');
  process.exitCode = await runTransfer(command, rest);
} else {
  await runCli(cli);
}
