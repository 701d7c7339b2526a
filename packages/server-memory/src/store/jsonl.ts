/**
 * The reference's file format, line for line (`src/memory/index.ts` `loadGraph`/`saveGraph`):
 * one JSON object per line, entities first then relations, keys in this order, lines joined with
 * `\n` and no trailing newline. We read a trailing newline and `\r\n` too.
 *
 * Reading is line by line (`GraphFileReader`), so a file can be fed in chunks and never held whole.
 */
import type { Entity, Relation } from '../graph.js';
import { plainEntity, plainRelation } from '../plainLines.js';
import { splitGlued } from './gluedRecords.js';

export function entityLine(e: Entity): string {
  return JSON.stringify({ type: 'entity', name: e.name, entityType: e.entityType, observations: e.observations });
}

export function relationLine(r: Relation): string {
  return JSON.stringify({ type: 'relation', from: r.from, to: r.to, relationType: r.relationType });
}

/** A line that is not a record we can load, kept verbatim so that it can be set aside, never dropped. */
export interface CorruptLine {
  /** 1-based line number in the file. */
  line: number;
  text: string;
  reason: string;
}

/** Where parsed records go. The objects may carry more fields (the parsed line's `type`): read the ones named, keep none of them. */
export interface GraphSink {
  entity(e: Entity): void;
  relation(r: Relation): void;
  /**
   * A plain entity line (`plainLines.ts`), when the sink takes one: its name and type, and the
   * line itself, which holds its observations (`plainObservations`). Without it, `entity` gets it.
   */
  plainEntity?(name: string, entityType: string, line: string): void;
}

export interface ParsedGraphFile {
  /** Entity and relation records loaded (handed to the sink). */
  records: number;
  /** Valid JSON objects with another `type` (the reference ignores them); kept verbatim and written back. */
  foreignRecords: string[];
  corrupt: CorruptLine[];
  /** Non-blank lines seen. */
  lines: number;
  /** Line numbers of lines that held several records glued together (`gluedRecords.ts`), each read. */
  split: number[];
}

const isStringArray = (v: unknown): v is string[] => {
  if (!Array.isArray(v)) return false;
  for (const x of v) if (typeof x !== 'string') return false;
  return true;
};

/** Copies a string that may be a slice of a large chunk, so keeping it does not keep the chunk alive. */
const own = (s: string): string => (s.length > 0 ? JSON.parse(JSON.stringify(s)) : s);

/** Why a parsed line is not a record this reader takes (null: it is one: an entity, a relation, or a foreign record). */
function recordProblem(item: unknown): string | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return 'not a JSON object';
  const rec = item as Record<string, unknown>;
  if (rec.type === 'entity') {
    const observations = rec.observations ?? [];
    if (typeof rec.name !== 'string' || typeof rec.entityType !== 'string' || !isStringArray(observations)) {
      return 'entity without a string name, string entityType and string observations';
    }
  } else if (rec.type === 'relation') {
    if (typeof rec.from !== 'string' || typeof rec.to !== 'string' || typeof rec.relationType !== 'string') {
      return 'relation without string from, to and relationType';
    }
  } else if (typeof rec.type !== 'string') {
    return 'no "type" field';
  }
  return null;
}

/**
 * Parses a memory file line by line into a sink. Never throws: a line that does not parse or lacks
 * a field is reported in `result.corrupt`. Feed it with `lines` (text made of whole lines, each
 * ending with `\n`) and finish with `last` (what follows the final `\n`, possibly empty).
 */
export class GraphFileReader {
  readonly result: ParsedGraphFile = { records: 0, foreignRecords: [], corrupt: [], lines: 0, split: [] };
  private lineNo = 0;

  constructor(private readonly into: GraphSink) {}

  /**
   * Reads the lines of `text` (whole lines, each ending with `\n`) from index `from`, and stops at
   * the first line boundary past `deadline` (a `performance.now()` time). Returns where it stopped
   * (`text.length`: all read).
   */
  lines(text: string, from = 0, deadline = Number.POSITIVE_INFINITY): number {
    let start = from;
    let count = 0;
    for (let nl = text.indexOf('\n', start); nl >= 0; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl));
      start = nl + 1;
      if ((++count & 63) === 0 && performance.now() > deadline) return start;
    }
    return text.length;
  }

  /** The text after the last `\n` of the file (the reference writes no trailing newline). */
  last(text: string): void {
    if (text !== '') this.line(text);
  }

  private line(raw: string): void {
    this.lineNo++;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw.charCodeAt(0) !== 123 /* { */ && raw.trim() === '') return;
    const out = this.result;
    out.lines++;
    if (this.plain(raw)) {
      out.records++;
      return;
    }
    let item: unknown;
    try {
      item = JSON.parse(raw);
    } catch (error) {
      if (!this.glued(raw))
        out.corrupt.push({ line: this.lineNo, text: own(raw), reason: error instanceof Error ? error.message : 'not JSON' });
      return;
    }
    const reason = recordProblem(item);
    if (reason !== null) out.corrupt.push({ line: this.lineNo, text: own(raw), reason });
    else this.record(raw, item as Record<string, unknown>);
  }

  /** Hands a record that passed `recordProblem` to the sink (or keeps it as a foreign record). */
  private record(raw: string, rec: Record<string, unknown>): void {
    const out = this.result;
    if (rec.type === 'entity') {
      // `observations` missing or null is the shape that crashed the reference's search (servers#1818): read as [].
      const observations = (rec.observations ?? []) as string[];
      // The parsed object is an entity already (the sink copies the fields it keeps): no copy when it has its observations.
      this.into.entity(
        observations === rec.observations
          ? (rec as unknown as Entity)
          : { name: rec.name as string, entityType: rec.entityType as string, observations },
      );
      out.records++;
    } else if (rec.type === 'relation') {
      this.into.relation(rec as unknown as Relation);
      out.records++;
    } else {
      out.foreignRecords.push(own(raw));
    }
  }

  /**
   * A line of records glued together (`gluedRecords.ts`: a line appended to a file without a final
   * newline): when every part is a record, each is read; false (nothing read) otherwise.
   */
  private glued(raw: string): boolean {
    const parts = splitGlued(raw);
    if (!parts) return false;
    const items: Record<string, unknown>[] = [];
    for (const part of parts) {
      let item: unknown;
      try {
        item = JSON.parse(part);
      } catch {
        return false;
      }
      if (recordProblem(item) !== null) return false;
      items.push(item as Record<string, unknown>);
    }
    for (const [i, item] of items.entries()) this.record(parts[i]!, item);
    this.result.split.push(this.lineNo);
    return true;
  }

  /** Hands a plain line (`plainLines.ts`) to the sink without `JSON.parse`; false for any other line. */
  private plain(raw: string): boolean {
    const into = this.into;
    if (into.plainEntity) {
      const e = plainEntity(raw);
      if (e) {
        into.plainEntity(e.name, e.entityType, raw);
        return true;
      }
    }
    const r = plainRelation(raw);
    if (r) into.relation(r);
    return r !== null;
  }
}

/** Parses a whole memory file held in memory into `into` (see `GraphFileReader`). */
export function parseGraphFile(text: string, into: GraphSink): ParsedGraphFile {
  const reader = new GraphFileReader(into);
  const end = text.lastIndexOf('\n') + 1;
  reader.lines(text.slice(0, end));
  reader.last(text.slice(end));
  return reader.result;
}

/**
 * A file is a memory graph when it is empty or at least one line is a record (a JSON object with a
 * string `type`). Anything else (a settings file, a shell profile, a JSON document) is refused:
 * the path came from configuration, and overwriting such a file would destroy it.
 */
export function looksLikeGraphFile(parsed: ParsedGraphFile): boolean {
  return parsed.lines === 0 || parsed.records + parsed.foreignRecords.length > 0;
}

/** Whether one line is a record (a JSON object with a string `type`): enough to call the file a memory graph. */
export function isRecordLine(line: string): boolean {
  try {
    const item = JSON.parse(line) as unknown;
    return typeof item === 'object' && item !== null && !Array.isArray(item) && typeof (item as { type?: unknown }).type === 'string';
  } catch {
    return false;
  }
}
