/**
 * The `import` and `export` subcommands of `mcp-server-memory` (`src/index.ts` sends
 * `mcp-server-memory import|export …` here, everything else to the server's `runCli`). The database
 * flags are the server's own (`--database-url`/`MEMORY_DATABASE_URL`, `--graph`/`MEMORY_GRAPH`, one
 * parser in `config.ts`). Progress and the summary go to stderr; stdout is only for `--help`.
 * Exit codes: 0 done, 1 failed (one stderr line, the password never shown), 2 bad usage or config.
 */
import { parseArgs } from 'node:util';
import {
  ConfigError,
  createLogger,
  defineOptions,
  errorMessage,
  formatHelp,
  type OptionSpecs,
  parseConfig,
  runnerOptions,
} from '@mcpkit/protocol-core';
import { options as serverOptions } from '../config.js';
import { passwordRedactor, redactUrl } from '../store/postgres/redact.js';
import type { TransferCommand } from './commands.js';
import { openTransferDatabase, type TransferDatabase } from './database.js';
import { checkExportTarget, describeExport, exportGraph } from './exportGraph.js';
import { checkImportFile, describeImport, importGraph } from './importGraph.js';

const BIN = 'mcp-server-memory';

const transferOptions = defineOptions({
  'database-url': { ...serverOptions['database-url'], description: 'The PostgreSQL connection string; its password is never shown' },
  graph: { ...serverOptions.graph, description: 'Which named graph of the database to fill or write out (1-200 characters)' },
  force: { type: 'boolean', description: 'export: replace <file> if it exists (without it, an existing file is never touched)' },
  rejected: {
    type: 'string',
    valueName: 'file',
    description: 'import: where the lines not imported are kept, verbatim (replaced on each run)',
    defaultLabel: '<file>.rejected',
    parse: (raw: string) => {
      if (raw === '') throw new Error('must not be empty');
      return raw;
    },
  },
  'log-level': { ...runnerOptions['log-level'], description: 'What is logged to stderr (progress lines are info)' },
  help: { type: 'boolean', short: 'h', description: 'Show this help and exit' },
});

const DESCRIPTIONS: Record<TransferCommand, string> = {
  import: `Copies a memory file (JSONL, the reference's format) into a graph of a PostgreSQL database. Safe to repeat:
an entity already in the graph only gets the observations it lacks, a relation already there is skipped. Records
are written in transactions of 2,000; if the import stops midway, run it again. Lines that are not imported
(unreadable, a record of another type, a NUL character) are counted and named on stderr and kept verbatim in
<file>.rejected (or --rejected). The schema is created or migrated as the server does.`,
  export: `Writes a graph of a PostgreSQL database to a memory file in the reference's JSONL format, exactly as the
file store writes it (entities then relations in insertion order, no trailing newline), from one consistent
snapshot of the graph. Written to a temp file beside it, then put in place: never a partial file. An existing
file is refused unless --force.`,
};

/** The subcommand's --help text. */
function transferHelp(command: TransferCommand): string {
  return formatHelp(`${BIN} ${command}`, DESCRIPTIONS[command], transferOptions as OptionSpecs).replace(
    /^Usage: .*\n/,
    `Usage: ${BIN} ${command} <file.jsonl> [options]\n`,
  );
}

/** The flags and the one file argument; `ConfigError` for an unknown flag, a missing value or a wrong count of files. */
function parseTransferArgs(command: TransferCommand, argv: readonly string[], env: NodeJS.ProcessEnv) {
  const spec: Record<string, { type: 'string' | 'boolean'; short?: string }> = {};
  for (const [name, o] of Object.entries(transferOptions as OptionSpecs))
    spec[name] = { type: o.type, ...(o.short ? { short: o.short } : {}) };
  let positional: Set<number>;
  try {
    const { tokens } = parseArgs({ args: [...argv], options: spec, strict: true, allowPositionals: true, tokens: true });
    positional = new Set(tokens.filter((t) => t.kind === 'positional').map((t) => t.index));
  } catch (error) {
    // parseArgs names the flag; its advice about `--` would only confuse here.
    throw new ConfigError(errorMessage(error).split('\n')[0]!.split('. To specify')[0]!);
  }
  const config = parseConfig(
    transferOptions,
    argv.filter((_, i) => !positional.has(i)),
    env,
  );
  if (config.help) return { config, file: '' };
  const files = argv.filter((_, i) => positional.has(i));
  if (files.length !== 1) throw new ConfigError(`${command} takes one file, got ${files.length}: ${BIN} ${command} <file.jsonl>`);
  if (!config.databaseUrl) throw new ConfigError(`${command} needs --database-url or MEMORY_DATABASE_URL`, 'database-url');
  if (command === 'import' && config.force)
    throw new ConfigError('--force applies to export only (import never changes the file)', 'force');
  if (command === 'export' && config.rejected !== undefined) throw new ConfigError('--rejected applies to import only', 'rejected');
  return { config, file: files[0]! };
}

/** Runs `mcp-server-memory <command> …argv`; resolves to the exit code. */
export async function runTransfer(
  command: TransferCommand,
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let parsed: ReturnType<typeof parseTransferArgs>;
  try {
    parsed = parseTransferArgs(command, argv, env);
  } catch (error) {
    process.stderr.write(`${BIN} ${command}: ${errorMessage(error)} (see ${BIN} ${command} --help)\n`);
    return 2;
  }
  const { config, file } = parsed;
  if (config.help) {
    process.stdout.write(transferHelp(command));
    return 0;
  }
  const url = config.databaseUrl!;
  const logger = createLogger({ name: BIN, level: config.logLevel });
  const where = `graph ${JSON.stringify(config.graph)} of ${redactUrl(url)}`;
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => controller.abort(new Error(`stopped by ${signal}`));
  let db: TransferDatabase | undefined;
  try {
    // What the arguments name is checked before connecting: a wrong path fails at once, with exit code 2.
    if (command === 'import') checkImportFile(file);
    else checkExportTarget(file, config.force);
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const started = performance.now();
    db = await openTransferDatabase(url);
    const common = { file, graph: config.graph, db, logger, signal: controller.signal };
    if (command === 'import') {
      const result = await importGraph({ ...common, ...(config.rejected !== undefined ? { rejectedPath: config.rejected } : {}) });
      logger.info(describeImport(result, file, where, performance.now() - started));
    } else {
      const result = await exportGraph({ ...common, force: config.force });
      logger.info(describeExport(result, file, where, performance.now() - started));
    }
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${BIN} ${command}: ${error.message}\n`);
      return 2;
    }
    const raw = error instanceof Error ? error.message || String((error as { code?: unknown }).code ?? error.name) : String(error);
    const message = passwordRedactor(url)(raw).replace(/\s*\n\s*/g, ' ');
    const after =
      command === 'import' ? 'what was imported before stays, and running the same import again is safe' : `nothing was written to ${file}`;
    logger.error(`${command} failed (${where}): ${message}; ${after}`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await db?.close();
  }
}
