import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkSkills, connectWithContext } from '@mcpkit/protocol-core/testing';
import type { McpRequestContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createFetchServer } from '../src/server.js';

// No call is made: the skill is read and its examples are checked against the tool's schema only.
const factory = (context: McpRequestContext) => createFetchServer({}, context);

describe('skills (SEP-2640)', () => {
  it('2026-07-28: every skill verifies, names only real tools and fields, and its examples validate', async () => {
    await using pair = await connectWithContext(factory);
    const report = await checkSkills(pair.client);
    expect(report.problems).toEqual([]);
    expect(report.skills.map((s) => s.uri)).toEqual(['skill://fetch/web-fetch/SKILL.md']);
    expect(report.examples).toBe(3);
  });

  it('lists the digest and size of the file the package ships', async () => {
    await using pair = await connectWithContext(factory);
    const { skills } = await checkSkills(pair.client);
    const bytes = readFileSync(new URL('../skills/web-fetch/SKILL.md', import.meta.url));
    expect(skills[0]?.resources).toEqual([
      {
        uri: 'skill://fetch/web-fetch/SKILL.md',
        digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        size: bytes.byteLength,
      },
    ]);
  });

  it('2025-11-25 sees exactly what it saw before: no extension, no resources', async () => {
    await using pair = await connectWithContext(factory, { mode: 'legacy' });
    const capabilities = pair.client.getServerCapabilities();
    expect(capabilities?.extensions).toBeUndefined();
    expect(capabilities?.resources).toBeUndefined();
  });
});
