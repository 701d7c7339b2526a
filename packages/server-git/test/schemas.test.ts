import { describe, expect, it } from 'vitest';
import { connect, gitRepo } from './helpers.js';

const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }], default: null };

/** The reference's `tools/list` (modelcontextprotocol/servers src/git, pydantic) for the fields whose shape differs in zod's output. */
const reference: Record<string, Record<string, Record<string, unknown>>> = {
  git_log: { start_timestamp: nullableString, end_timestamp: nullableString },
  git_create_branch: { base_branch: nullableString },
  git_branch: { contains: nullableString, not_contains: nullableString },
  git_add: { files: { items: { type: 'string' }, type: 'array', minItems: 1 } },
};

function walk(schema: unknown, visit: (node: Record<string, unknown>) => void): void {
  if (typeof schema !== 'object' || schema === null) return;
  visit(schema as Record<string, unknown>);
  for (const value of Object.values(schema)) walk(value, visit);
}

describe('tools/list input schemas against the reference', () => {
  it('spells nullable parameters as anyOf and requires at least one file for git_add', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const { tools } = await pair.client.listTools();
    for (const [tool, fields] of Object.entries(reference)) {
      const listed = tools.find((t) => t.name === tool);
      for (const [field, expected] of Object.entries(fields)) {
        const actual = (listed!.inputSchema.properties as Record<string, Record<string, unknown>>)[field]!;
        const { title: _title, description: _description, ...shape } = actual;
        expect(shape, `${tool}.${field}`).toEqual(expected);
      }
    }
    // No tool keeps the array form anywhere (input or output), which some clients reject.
    for (const tool of tools) {
      walk([tool.inputSchema, tool.outputSchema], (node) => expect(Array.isArray(node.type), tool.name).toBe(false));
    }
  });

  it('refuses an empty git_add file list through the schema, as the reference does', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: [] } }).catch((e: Error) => e);
    const message = res instanceof Error ? res.message : JSON.stringify(res);
    expect(message).toMatch(/files|too_small|at least 1/i);
  });
});
