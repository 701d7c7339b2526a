import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkSkills, connectWithContext } from '@mcpkit/protocol-core/testing';
import type { McpRequestContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createEverythingServer, type Profile } from '../src/server.js';

// The capability-gated tools (sampling, elicitation, roots) are listed only to a client declaring them.
const capabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };
const factory = (profile: Profile) => (context: McpRequestContext) => createEverythingServer({ profile }, context);

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('skills (SEP-2640)', () => {
  it('current: every skill verifies, names only real tools and fields, and its examples validate', async () => {
    await using pair = await connectWithContext(factory('current'), { capabilities });
    const report = await checkSkills(pair.client);
    expect(report.problems).toEqual([]);
    expect(report.skills.map((s) => s.uri)).toEqual(['skill://everything/everything-tour/SKILL.md']);
    expect(report.examples).toBe(4);
  });

  it('conformance: the fixtures skill with its reference file, digests and sizes as shipped', async () => {
    await using pair = await connectWithContext(factory('conformance'), { capabilities });
    const report = await checkSkills(pair.client);
    expect(report.problems).toEqual([]);
    expect(report.examples).toBe(3);
    const file = (path: string) => readFileSync(new URL(`../skills/conformance/conformance-fixtures/${path}`, import.meta.url));
    expect(report.skills).toEqual([
      {
        uri: 'skill://everything/conformance-fixtures/SKILL.md',
        frontmatter: expect.objectContaining({ name: 'conformance-fixtures' }),
        resources: [
          { uri: 'skill://everything/conformance-fixtures/SKILL.md', digest: sha256(file('SKILL.md')), size: file('SKILL.md').byteLength },
          {
            uri: 'skill://everything/conformance-fixtures/references/TOOLS.md',
            digest: sha256(file('references/TOOLS.md')),
            size: file('references/TOOLS.md').byteLength,
          },
        ],
      },
    ]);
  });

  it('conformance: resources/directory/read lists a skill folder, its subfolder as inode/directory', async () => {
    await using pair = await connectWithContext(factory('conformance'));
    const read = (params: Record<string, unknown>) => pair.client.request({ method: 'resources/directory/read', params } as never, z.any());
    const root = await read({ uri: 'skill://everything/conformance-fixtures' });
    expect(root.resources).toEqual([
      expect.objectContaining({ uri: 'skill://everything/conformance-fixtures/SKILL.md', mimeType: 'text/markdown' }),
      { uri: 'skill://everything/conformance-fixtures/references', name: 'references', mimeType: 'inode/directory' },
    ]);
    expect(root.ttlMs).toBeTypeOf('number');
    await expect(read({ uri: 'skill://everything/conformance-fixtures/SKILL.md' })).rejects.toMatchObject({ code: -32602 });
    expect(pair.client.getServerCapabilities()?.extensions).toEqual({
      'io.modelcontextprotocol/skills': { directoryRead: true },
      // the conformance profile also serves the tasks extension's fixtures (SEP-2663)
      'io.modelcontextprotocol/tasks': {},
    });
  });

  it('the legacy profile and 2025-11-25 clients see no skills', async () => {
    for (const [profile, mode] of [
      ['legacy', '2026-07-28'],
      ['current', 'legacy'],
      ['conformance', 'legacy'],
    ] as const) {
      await using pair = await connectWithContext(factory(profile), { mode });
      expect(pair.client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills']).toBeUndefined();
    }
  });
});
