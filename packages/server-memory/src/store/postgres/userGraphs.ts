/**
 * `--graph-per-user` on PostgreSQL: every user's graph (`<graph>/user:<key>`) is a store on the process's one pool
 * and one LISTEN connection (`database.ts`), so the process holds `poolSize` + 1 connections at most however many
 * users come; a user's store holds no connection of its own.
 */
import { createUserGraphs, type UserGraphs } from '../../userGraphs.js';
import { openPostgresDatabase, type PostgresDatabase, type PostgresDatabaseOptions } from './database.js';
import { DEFAULT_GRAPH, userGraphName } from './graphName.js';
import { openPostgresGraph } from './postgresStore.js';

export interface PostgresUserGraphsOptions extends PostgresDatabaseOptions {
  /** The graph whose per-user siblings are used (`<graph>/user:<key>`); default `default`. */
  graph?: string;
}

/** The users' graphs in the database at `url`; `close()` closes their stores and then the process's connections. */
export function openPostgresUserGraphs({
  graph = DEFAULT_GRAPH,
  ...options
}: PostgresUserGraphsOptions): UserGraphs & Pick<PostgresDatabase, 'ping'> {
  const db = openPostgresDatabase(options);
  const users = createUserGraphs({ open: async (key) => openPostgresGraph(db, userGraphName(graph, key)) });
  return {
    use: users.use,
    hold: users.hold,
    ping: db.ping,
    async close() {
      await users.close();
      await db.close();
    },
  };
}
