import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkSkills, connectWithContext } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryServer, createMemoryStore } from '../src/server.js';

const factory = () => {
  const store = createMemoryStore();
  return (context: Parameters<typeof createMemoryServer>[0]['context']) => createMemoryServer({ store, context });
};

describe('skills (SEP-2640)', () => {
  it('2026-07-28: every skill verifies, names only real tools and fields, and its examples validate', async () => {
    await using pair = await connectWithContext(factory());
    const report = await checkSkills(pair.client);
    expect(report.problems).toEqual([]);
    expect(report.skills.map((s) => s.uri)).toEqual(['skill://memory/knowledge-graph/SKILL.md']);
    expect(report.examples).toBeGreaterThanOrEqual(6);
  });

  it('lists the digest and size of the file the package ships', async () => {
    await using pair = await connectWithContext(factory());
    const { skills } = await checkSkills(pair.client);
    const bytes = readFileSync(new URL('../skills/knowledge-graph/SKILL.md', import.meta.url));
    const entry = skills[0]?.resources;
    expect(entry).toEqual([
      {
        uri: 'skill://memory/knowledge-graph/SKILL.md',
        digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        size: bytes.byteLength,
      },
    ]);
  });

  it('2025-11-25 sees no skills: no extension, no skill resources, no skills/list', async () => {
    await using pair = await connectWithContext(factory(), { mode: 'legacy' });
    expect(pair.client.getServerCapabilities()?.extensions).toBeUndefined();
    const { resources } = await pair.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['memory://knowledge-graph']);
    await expect(pair.client.request({ method: 'skills/list', params: {} } as never, (await import('zod')).z.any())).rejects.toThrow(
      /not found/i,
    );
  });
});
