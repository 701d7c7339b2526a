/**
 * The reference's file format, line for line (`src/memory/index.ts` `loadGraph`/`saveGraph`):
 * one JSON object per line, entities first then relations, keys in this order, lines joined with
 * `\n` and no trailing newline. We read a trailing newline and `\r\n` too.
 */
import type { Entity, Relation } from '../graph.js';

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

/** Where parsed records go. */
export interface GraphSink {
  entity(e: Entity): void;
  relation(r: Relation): void;
}

export interface ParsedGraphFile {
  /** Entity and relation records loaded (handed to the sink). */
  records: number;
  /** Valid JSON objects with another `type` (the reference ignores them); kept verbatim and written back. */
  foreignRecords: string[];
  corrupt: CorruptLine[];
  /** Non-blank lines seen. */
  lines: number;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Parses a memory file into `into`. Never throws: a line that does not parse or lacks a field is reported in `corrupt`. */
export function parseGraphFile(text: string, into: GraphSink): ParsedGraphFile {
  const out: ParsedGraphFile = { records: 0, foreignRecords: [], corrupt: [], lines: 0 };
  const rows = text.split('\n');
  for (let i = 0; i < rows.length; i++) {
    let raw = rows[i]!;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw.trim() === '') continue;
    out.lines++;
    let item: unknown;
    try {
      item = JSON.parse(raw);
    } catch (error) {
      out.corrupt.push({ line: i + 1, text: raw, reason: error instanceof Error ? error.message : 'not JSON' });
      continue;
    }
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      out.corrupt.push({ line: i + 1, text: raw, reason: 'not a JSON object' });
      continue;
    }
    const rec = item as Record<string, unknown>;
    if (rec.type === 'entity') {
      // `observations` missing or null is the shape that crashed the reference's search (servers#1818): read as [].
      const observations = rec.observations ?? [];
      if (typeof rec.name !== 'string' || typeof rec.entityType !== 'string' || !isStringArray(observations)) {
        out.corrupt.push({ line: i + 1, text: raw, reason: 'entity without a string name, string entityType and string observations' });
        continue;
      }
      into.entity({ name: rec.name, entityType: rec.entityType, observations });
      out.records++;
    } else if (rec.type === 'relation') {
      if (typeof rec.from !== 'string' || typeof rec.to !== 'string' || typeof rec.relationType !== 'string') {
        out.corrupt.push({ line: i + 1, text: raw, reason: 'relation without string from, to and relationType' });
        continue;
      }
      into.relation({ from: rec.from, to: rec.to, relationType: rec.relationType });
      out.records++;
    } else if (typeof rec.type === 'string') {
      out.foreignRecords.push(raw);
    } else {
      out.corrupt.push({ line: i + 1, text: raw, reason: 'no "type" field' });
    }
  }
  return out;
}

/**
 * A file is a memory graph when it is empty or at least one line is a record (a JSON object with a
 * string `type`). Anything else (a settings file, a shell profile, a JSON document) is refused:
 * the path came from configuration, and overwriting such a file would destroy it.
 */
export function looksLikeGraphFile(parsed: ParsedGraphFile): boolean {
  return parsed.lines === 0 || parsed.records + parsed.foreignRecords.length > 0;
}
