/**
 * The example calls a skill shows an agent, in machine-readable form: each fenced ```json block (indented too) of a skill file
 * holding `{"tool": "<name>", "arguments": {…}}` (or an array of them, a sequence of calls). Tests check every one
 * against the server's real `tools/list` (`checkSkills` in `@mcpkit/protocol-core/testing`).
 */

interface SkillExample {
  tool: string;
  arguments: Record<string, unknown>;
  /** 1-based line of the block's opening fence. */
  line: number;
}

export interface ParsedExamples {
  examples: SkillExample[];
  /** Blocks that are not JSON or not in the example shape, each with its line. */
  problems: string[];
}

const FENCE = /^[ \t]*```json[ \t]*$/;
const CLOSE = /^[ \t]*```[ \t]*$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every ```json block of `markdown`, read as example calls. */
export function skillExamples(markdown: string): ParsedExamples {
  const lines = markdown.split(/\r?\n/);
  const examples: SkillExample[] = [];
  const problems: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i] ?? '')) continue;
    const start = i + 1;
    const body: string[] = [];
    for (i += 1; i < lines.length && !CLOSE.test(lines[i] ?? ''); i++) body.push(lines[i] ?? '');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.join('\n'));
    } catch (error) {
      problems.push(`line ${start}: not JSON (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      if (!isRecord(item) || typeof item.tool !== 'string' || !isRecord(item.arguments)) {
        problems.push(`line ${start}: not {"tool": string, "arguments": object}`);
        continue;
      }
      examples.push({ tool: item.tool, arguments: item.arguments, line: start });
    }
  }
  return { examples, problems };
}

/** Names with `_` or `-` a skill writes in backticks (`search_nodes`, `start_index`): each must be a tool or an argument. */
export function mentionedNames(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(/`([a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)`/g)].map((m) => m[1] as string))];
}
