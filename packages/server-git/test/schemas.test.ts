import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listedWithAnyOf } from '../src/listSchemas.js';
import { extraTools, initTools, referenceTools, remoteTools } from '../src/tools/index.js';
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

describe('tools/list schemas against the reference', () => {
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
    // No input schema keeps the array form anywhere, which some clients reject.
    for (const tool of tools) walk(tool.inputSchema, (node) => expect(Array.isArray(node.type), tool.name).toBe(false));
  });

  it('lists JSON Schema 2020-12 (SDK v2), with output schemas as the SDK renders them', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const { tools } = await pair.client.listTools();
    for (const tool of tools) {
      expect(tool.inputSchema.$schema, tool.name).toBe('https://json-schema.org/draft/2020-12/schema');
      if (tool.outputSchema) expect(tool.outputSchema.$schema, tool.name).toBe('https://json-schema.org/draft/2020-12/schema');
    }
    // Output schemas are not rewritten: zod's `type` array for a nullable field (it was `anyOf` under SDK v1).
    const checkout = tools.find((t) => t.name === 'git_checkout')!;
    const { description: _d, ...branch } = (checkout.outputSchema!.properties as Record<string, Record<string, unknown>>).branch!;
    expect(branch).toEqual({ type: ['string', 'null'] });
  });

  it('refuses an empty git_add file list through the schema, as the reference does', async () => {
    using fx = gitRepo();
    await using pair = await connect({ repositories: [fx.path] });
    const res = await pair.client.callTool({ name: 'git_add', arguments: { repo_path: fx.repo, files: [] } }).catch((e: Error) => e);
    const message = res instanceof Error ? res.message : JSON.stringify(res);
    expect(message).toMatch(/files|too_small|at least 1/i);
  });

  it('changes only the listing: every tool accepts and refuses exactly what its zod schema does', async () => {
    const samples = [
      {},
      { repo_path: '/r' },
      { repo_path: 5 },
      { repo_path: '/r', start_timestamp: null, base_branch: null, contains: null },
      { repo_path: '/r', start_timestamp: 5 },
      { repo_path: '/r', files: [] },
      { repo_path: '/r', files: ['a'], max_count: 1.5 },
      { repo_path: '/r', branch_name: 'b', message: 'm', unknown_field: true },
    ];
    for (const tool of [...referenceTools, ...extraTools, ...initTools, ...remoteTools]) {
      const plain = tool.input instanceof z.ZodObject ? tool.input : z.object(tool.input);
      const listed = listedWithAnyOf(tool.input);
      for (const sample of samples) {
        const a = plain.safeParse(sample);
        const b = await listed['~standard'].validate(sample);
        expect(b.issues === undefined, `${tool.name} ${JSON.stringify(sample)}`).toBe(a.success);
        if (a.success) expect((b as { value: unknown }).value).toEqual(a.data);
      }
      // The tool's own schema still renders as zod does (the wrapper works on a copy).
      const json = JSON.stringify(z.toJSONSchema(plain, { target: 'draft-2020-12', io: 'input' }));
      const hasNullable = json.includes('"null"');
      if (hasNullable) expect(json, tool.name).toContain('["string","null"]');
    }
  });
});
