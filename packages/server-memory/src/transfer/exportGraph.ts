/**
 * `mcp-server-memory export <file.jsonl>`: writes a graph of the database as a memory file, in the
 * reference's format exactly as the file store writes it (`entityLine`/`relationLine`: entities then
 * relations, each in insertion order, lines joined with `\n`, no trailing newline; a new file gets
 * mode 0600). The graph is read in one read-only transaction (one snapshot, even while servers
 * write), a page at a time, into a temp file beside the target that is fsynced and then put in
 * place: linked (an existing file is never replaced without `--force`) or, with `--force`, renamed
 * over it. A failure or Ctrl-C leaves no partial file.
 */
import { linkSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, type Logger } from '@mcpkit/protocol-core';
import { fsyncDir, tempPathFor } from '../store/durable.js';
import { entityLine, relationLine } from '../store/jsonl.js';
import { countGraph, entityPages, relationPages, type TransferDatabase } from './database.js';
import { formatCount, formatMiB } from './progress.js';

export interface ExportOptions {
  file: string;
  graph: string;
  db: TransferDatabase;
  logger: Logger;
  /** Replace `file` if it exists. */
  force?: boolean;
  /** Rows per query; default 5000. */
  pageSize?: number;
  /** A progress line every this many records; default 10,000. */
  progressEvery?: number;
  signal?: AbortSignal;
}

export interface ExportResult {
  entities: number;
  relations: number;
  bytes: number;
}

/** Bytes of text gathered before one write. */
const CHUNK_CHARS = 1024 * 1024;

/** Refuses (exit 2) a target that exists (without `force`), is a folder, or whose folder is missing; returns the mode to write. */
export function checkExportTarget(file: string, force: boolean): number {
  let mode = 0o600;
  try {
    const stat = statSync(file);
    if (stat.isDirectory()) throw new ConfigError(`${file} is a folder`);
    if (!force) throw new ConfigError(`${file} exists; nothing was written (add --force to replace it)`);
    mode = stat.mode & 0o777;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new ConfigError(`cannot write ${file}: ${(error as Error).message}`);
  }
  let folder: ReturnType<typeof statSync> | undefined;
  try {
    folder = statSync(dirname(file));
  } catch {}
  if (!folder?.isDirectory()) throw new ConfigError(`cannot write ${file}: its folder ${dirname(file)} does not exist`);
  return mode;
}

/** Puts the finished temp file at `file`: a link (fails if `file` appeared meanwhile) unless `force`, then a rename. */
function putInPlace(temp: string, file: string, force: boolean): void {
  if (!force) {
    try {
      linkSync(temp, file);
      unlinkSync(temp);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST')
        throw new ConfigError(`${file} was created by someone else meanwhile; nothing was written (add --force to replace it)`);
      // A file system without hard links: check once more, then rename.
      if (statSync(file, { throwIfNoEntry: false }))
        throw new ConfigError(`${file} exists; nothing was written (add --force to replace it)`);
    }
  }
  renameSync(temp, file);
}

/** Exports `graph` to `file`; see the module comment. */
export async function exportGraph(options: ExportOptions): Promise<ExportResult> {
  const { file, graph, db, logger, force = false, pageSize = 5000, progressEvery = 10_000, signal } = options;
  const mode = checkExportTarget(file, force);
  const temp = tempPathFor(file);
  const handle = await open(temp, 'wx', mode);
  const result: ExportResult = { entities: 0, relations: 0, bytes: 0 };
  let placed = false;
  try {
    await db.transaction(true, async (client) => {
      const total = await countGraph(client, graph);
      if (total.entities + total.relations === 0) logger.warn(`export: graph ${JSON.stringify(graph)} is empty (is --graph right?)`);
      let parts: string[] = [];
      let size = 0;
      let reported = 0;
      const write = async () => {
        if (parts.length === 0) return;
        const text = (result.bytes === 0 ? '' : '\n') + parts.join('\n');
        parts = [];
        size = 0;
        const bytes = Buffer.from(text, 'utf8');
        // A short write (a full disk) is followed by one for the rest; one that puts down nothing fails the export.
        for (let done = 0; done < bytes.length; ) {
          const { bytesWritten } = await handle.write(bytes, done, bytes.length - done);
          if (!(bytesWritten > 0)) throw Object.assign(new Error(`ENOSPC: no space left on device, write ${temp}`), { code: 'ENOSPC' });
          done += bytesWritten;
        }
        result.bytes += bytes.length;
      };
      /** Gathers a line; true when the chunk is full and should be written. */
      const add = (line: string): boolean => {
        parts.push(line);
        size += line.length + 1;
        return size >= CHUNK_CHARS;
      };
      const progress = () => {
        const done = result.entities + result.relations;
        if (Math.floor(done / progressEvery) > reported) {
          reported = Math.floor(done / progressEvery);
          logger.info(`export: ${formatCount(done)} of ${formatCount(total.entities + total.relations)} records read`);
        }
      };
      for await (const page of entityPages(client, graph, pageSize)) {
        signal?.throwIfAborted();
        for (const e of page) if (add(entityLine(e))) await write();
        result.entities += page.length;
        progress();
      }
      for await (const page of relationPages(client, graph, pageSize)) {
        signal?.throwIfAborted();
        for (const r of page) if (add(relationLine(r))) await write();
        result.relations += page.length;
        progress();
      }
      await write();
    });
    await handle.sync();
    const { size } = await handle.stat();
    if (size !== result.bytes) throw new Error(`${temp} holds ${size} bytes after ${result.bytes} were written; nothing was exported`);
    await handle.close();
    signal?.throwIfAborted();
    putInPlace(temp, file, force);
    placed = true;
    fsyncDir(dirname(file));
    return result;
  } finally {
    if (!placed) {
      await handle.close().catch(() => {});
      try {
        unlinkSync(temp);
      } catch {}
    }
  }
}

/** The summary line of an export. */
export function describeExport(r: ExportResult, file: string, where: string, ms: number): string {
  return `exported ${where} to ${file}: ${formatCount(r.entities)} entities, ${formatCount(r.relations)} relations (${formatMiB(r.bytes)}), in ${(ms / 1000).toFixed(1)} s`;
}
