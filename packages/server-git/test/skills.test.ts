import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkSkills, connectWithContext } from '@mcpkit/protocol-core/testing';
import type { McpRequestContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createGitServer } from '../src/server.js';

const root = mkdtempSync(join(tmpdir(), 'git-skills-'));
// git_init is listed with allowInit; the remote tools need --allow-remote (network access), so the skill may name
// them without this server listing them.
const factory = (context: McpRequestContext) => createGitServer({ repositories: [root], allowInit: true }, context);
const REMOTE_TOOLS = ['git_fetch', 'git_pull', 'git_push'];

describe('skills (SEP-2640)', () => {
  it('2026-07-28: every skill verifies, names only real tools and fields, and its examples validate', async () => {
    await using pair = await connectWithContext(factory);
    const report = await checkSkills(pair.client, { allowNames: REMOTE_TOOLS });
    expect(report.problems).toEqual([]);
    expect(report.skills.map((s) => s.uri)).toEqual(['skill://git/git-workflow/SKILL.md']);
    expect(report.examples).toBeGreaterThanOrEqual(7);
  });

  it('lists the digest and size of the file the package ships', async () => {
    await using pair = await connectWithContext(factory);
    const { skills } = await checkSkills(pair.client, { allowNames: REMOTE_TOOLS });
    const bytes = readFileSync(new URL('../skills/git-workflow/SKILL.md', import.meta.url));
    expect(skills[0]?.resources).toEqual([
      {
        uri: 'skill://git/git-workflow/SKILL.md',
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
