/**
 * Tool names as the model sees them: `server__tool`, only `[A-Za-z0-9_-]`, at most 64 characters
 * (what OpenAI-compatible APIs accept), and unique across every server of the session.
 */
import { createHash } from 'node:crypto';

/** The longest name a tool may have (OpenAI's function-name limit). */
export const MAX_TOOL_NAME_LENGTH = 64;

const SEPARATOR = '__';
const HASH_LENGTH = 8;

function sanitize(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

function hash8(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, HASH_LENGTH);
}

/** `base` cut so that `_<hash>` fits in 64 characters, then that suffix. */
function withHash(base: string, hash: string): string {
  return `${base.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/**
 * The namespaced name of a server's tool: `server__tool` with every character outside
 * `[A-Za-z0-9_-]` replaced by `_`. Longer than 64 characters: cut and ended with `_` and 8 hex
 * characters of sha256(server + NUL + tool), exactly 64 in all.
 */
export function namespaceToolName(server: string, tool: string): string {
  const base = `${sanitize(server)}${SEPARATOR}${sanitize(tool)}`;
  return base.length <= MAX_TOOL_NAME_LENGTH ? base : withHash(base, hash8(server, tool));
}

/** Gives out namespaced names, unique within the table. */
export interface ToolNameTable {
  /**
   * The name for `tool` of `server`: `namespaceToolName` unless another pair already has it (two
   * servers whose names sanitise alike, `a.b` and `a_b`), then a hash-suffixed variant. The same
   * sequence of calls always gives the same names.
   */
  assign(server: string, tool: string): string;
}

/** A fresh table; build one per listing, in config order then server order, for stable names. */
export function createToolNameTable(): ToolNameTable {
  const taken = new Set<string>();
  return {
    assign(server, tool) {
      const base = namespaceToolName(server, tool);
      let name = base;
      // A clash after sanitising: suffix the hash of the exact pair (and a counter in the
      // unlikely case that is taken too, e.g. a server listing the same tool twice).
      for (let attempt = 0; taken.has(name); attempt++) {
        name = withHash(base, attempt === 0 ? hash8(server, tool) : hash8(server, tool, String(attempt)));
      }
      taken.add(name);
      return name;
    },
  };
}
