/**
 * `mcp-server-memory import <file.jsonl>`: copies a memory file into a graph of the database.
 *
 * The file is streamed (1 MiB at a time) through the file store's own reader (`GraphFileReader`:
 * the same lines are records, glued lines are split, CRLF and blank lines are read), and its records
 * are inserted in transactions of a few thousand rows (`database.ts`). Repeating an import changes
 * nothing: an entity whose name is in the graph only gets the observations it lacks, and a relation
 * already there is skipped. A line that is not imported (unreadable, a record of another type, a
 * NUL character PostgreSQL cannot store) is counted, named on stderr and kept in `<file>.rejected`.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { ConfigError, type Logger } from '@mcpkit/protocol-core';
import type { Entity, Relation } from '../graph.js';
import { memoryFiles } from '../store/compaction.js';
import { fileIdOf } from '../store/durable.js';
import { compactedTo } from '../store/journal.js';
import { GraphFileReader, isRecordLine } from '../store/jsonl.js';
import { hasNul } from '../store/postgres/text.js';
import { firstLine } from '../store/snapshot.js';
import { insertEntities, insertRelations, notifyChange, type TransferDatabase } from './database.js';
import { formatCount, formatMiB } from './progress.js';
import { describeRejected, RejectedLines, type RejectKind } from './rejected.js';

export interface ImportOptions {
  file: string;
  graph: string;
  db: TransferDatabase;
  logger: Logger;
  /** Where rejected lines go; default `<file>.rejected`. */
  rejectedPath?: string;
  /** Rows per transaction; default 2000. */
  batchSize?: number;
  /** A progress line every this many records; default 10,000. */
  progressEvery?: number;
  signal?: AbortSignal;
}

export interface ImportResult {
  entities: { read: number; created: number; merged: number };
  relations: { read: number; created: number };
  rejected: number;
  /** Where the rejected lines are (undefined: none). */
  rejectedPath?: string;
}

/** Characters of pending JSON at which a batch is written even if it has fewer rows. */
const BATCH_CHARS = 8 * 1024 * 1024;

/**
 * The journal beside `file` (`<file>.wal`) when it holds changes the file lacks: records not marked as
 * folded into this very file. A server folds them 2 s after its last write and on exit; importing the
 * file alone before that would miss them.
 */
function unfoldedJournal(file: string): string | undefined {
  const wal = memoryFiles(file).wal;
  let body: string;
  try {
    body = readFileSync(wal, 'utf8');
  } catch {
    return undefined;
  }
  const records = body.split('\n').some((line) => line.startsWith('{"op":'));
  return records && !compactedTo(body, fileIdOf(file)) ? wal : undefined;
}

/** Refuses (exit 2) a path that is not a file, or a file whose first line is not a record: not a memory graph. */
export function checkImportFile(file: string): number {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new ConfigError(`${file} is not a file`);
    size = stat.size;
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const pending = unfoldedJournal(file);
  if (pending) {
    throw new ConfigError(
      `${pending} holds changes not yet folded into ${file} (a server is writing to it, or one was stopped by force); ` +
        'stop the servers using this file, start and stop one of them once (it folds the journal on exit), then import again',
    );
  }
  const first = firstLine(file);
  if (first !== undefined && !isRecordLine(first)) {
    throw new ConfigError(`${file} is not a memory graph (its first line is not a JSON record); nothing was imported`);
  }
  return size;
}

/** Imports `file` into `graph`; see the module comment. Throws on a database or file error (what was committed stays). */
export async function importGraph(options: ImportOptions): Promise<ImportResult> {
  const { file, graph, db, logger, batchSize = 2000, progressEvery = 10_000, signal } = options;
  const total = checkImportFile(file);
  const rejected = new RejectedLines(options.rejectedPath ?? `${file}.rejected`);
  const result: ImportResult = { entities: { read: 0, created: 0, merged: 0 }, relations: { read: 0, created: 0 }, rejected: 0 };
  /** Entities of the batch by name: a name repeated in the file merges into its first record, as the database would. */
  let entities = new Map<string, Entity>();
  let relations: Relation[] = [];
  let pendingChars = 0;
  let lineNo = 0;
  let rawLine = '';
  let lineRejected = false;
  let reported = 0;
  let bytesRead = 0;
  /** Who sends this import's change notices (servers skip only their own), and how many were sent. */
  const origin = `import-${randomUUID()}`;
  let notices = 0;

  const reject = (kind: RejectKind, line: number, text: string, reason: string) => rejected.add(kind, { line, text, reason });
  const reader = new GraphFileReader({
    entity(e) {
      if (hasNul(e.name) || hasNul(e.entityType) || e.observations.some(hasNul)) {
        lineRejected = true;
        return;
      }
      result.entities.read++;
      pendingChars += e.name.length + e.entityType.length + e.observations.reduce((n, o) => n + o.length + 4, 40);
      const seen = entities.get(e.name);
      if (!seen) entities.set(e.name, { name: e.name, entityType: e.entityType, observations: [...e.observations] });
      else seen.observations.push(...e.observations.filter((o) => !seen.observations.includes(o)));
    },
    relation(r) {
      if (hasNul(r.from) || hasNul(r.to) || hasNul(r.relationType)) {
        lineRejected = true;
        return;
      }
      result.relations.read++;
      pendingChars += r.from.length + r.to.length + r.relationType.length + 60;
      relations.push({ from: r.from, to: r.to, relationType: r.relationType });
    },
  });

  /** Reads one line (without its `\n`) and sets aside what the reader could not take from it. */
  const readLine = (raw: string, last: boolean) => {
    lineNo++;
    rawLine = raw;
    lineRejected = false;
    if (last) reader.last(raw);
    else reader.lines(`${raw}\n`);
    const out = reader.result;
    for (const c of out.corrupt) reject('unreadable', c.line, c.text, c.reason);
    out.corrupt.length = 0;
    for (const text of out.foreignRecords) reject('foreign', lineNo, text, 'a record of another type, which the database has no place for');
    out.foreignRecords.length = 0;
    if (lineRejected) reject('unstorable', lineNo, rawLine, 'a NUL character (\\u0000), which PostgreSQL text cannot hold');
  };

  const flush = async () => {
    if (entities.size === 0 && relations.length === 0) return;
    signal?.throwIfAborted();
    const batchEntities = [...entities.values()];
    const batchRelations = relations;
    entities = new Map();
    relations = [];
    pendingChars = 0;
    const [e, r] = await db.transaction(false, async (client) => {
      const entityCounts = await insertEntities(client, graph, batchEntities);
      const relationCount = await insertRelations(client, graph, batchRelations);
      if (entityCounts.created + entityCounts.merged + relationCount > 0) await notifyChange(client, graph, origin, ++notices);
      return [entityCounts, relationCount] as const;
    });
    result.entities.created += e.created;
    result.entities.merged += e.merged;
    result.relations.created += r;
    const records = result.entities.read + result.relations.read;
    if (Math.floor(records / progressEvery) > reported) {
      reported = Math.floor(records / progressEvery);
      logger.info(`import: ${formatCount(records)} records done (${formatMiB(bytesRead)} of ${formatMiB(total)})`);
    }
  };

  try {
    const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: 1024 * 1024 });
    let rest = '';
    for await (const chunk of stream as AsyncIterable<string>) {
      signal?.throwIfAborted();
      bytesRead = stream.bytesRead;
      const text = rest + chunk;
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        readLine(text.slice(start, nl), false);
        start = nl + 1;
        if (entities.size + relations.length >= batchSize || pendingChars >= BATCH_CHARS) await flush();
      }
      rest = text.slice(start);
    }
    readLine(rest, true);
    await flush();
    result.rejected = rejected.summary.count;
    if (rejected.commit()) {
      result.rejectedPath = rejected.path;
      logger.warn(`import: ${describeRejected(rejected.summary, rejected.path)}`);
    }
    return result;
  } catch (error) {
    rejected.discard();
    throw error;
  }
}

/** The summary line of an import. */
export function describeImport(r: ImportResult, file: string, where: string, ms: number): string {
  const unchanged = r.entities.read - r.entities.created - r.entities.merged;
  return (
    `imported ${file} into ${where}: ${formatCount(r.entities.read)} entities (${formatCount(r.entities.created)} new, ` +
    `${formatCount(r.entities.merged)} already there and given their missing observations, ${formatCount(unchanged)} already there as they are), ` +
    `${formatCount(r.relations.read)} relations (${formatCount(r.relations.created)} new, ${formatCount(r.relations.read - r.relations.created)} already there), ` +
    `${formatCount(r.rejected)} lines not imported${r.rejectedPath ? ` (in ${r.rejectedPath})` : ''}, in ${(ms / 1000).toFixed(1)} s`
  );
}
