import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { checkSkills, connectWithContext } from '@mcpkit/protocol-core/testing';
import { describe, expect, it } from 'vitest';
import { createMemoryChains, createSequentialThinkingApp } from '../src/server.js';

const app = () => createSequentialThinkingApp({ chains: createMemoryChains({ maxHistory: 1000, maxHistoryBytes: 1024 * 1024 }) });
const URI = 'skill://sequential-thinking/sequential-thinking/SKILL.md';

describe('skills (SEP-2640)', () => {
  // The 2026-07-28 HTTP unit serves the chained tool (one more argument, thoughtChain), the others the reference's:
  // the examples must validate against the tool either unit lists.
  it('2026-07-28 over HTTP (chained tool): every skill verifies, names real tools and fields, examples validate', async () => {
    const served = app();
    await using pair = await connectWithContext((context) => served.createServer(context));
    const report = await checkSkills(pair.client);
    expect(report.problems).toEqual([]);
    expect(report.skills.map((s) => s.uri)).toEqual([URI]);
    expect(report.examples).toBe(3);
  });

  it('2026-07-28 over stdio (the reference tool): the same holds', async () => {
    const served = app();
    // serveStdio's context: modern, no HTTP request.
    await using pair = await connectWithContext((context) => served.createServer({ era: context.era }));
    const report = await checkSkills(pair.client);
    expect(report.problems).toEqual([]);
    expect(report.examples).toBe(3);
  });

  it('lists the digest and size of the file the package ships', async () => {
    const served = app();
    await using pair = await connectWithContext((context) => served.createServer(context));
    const { skills } = await checkSkills(pair.client);
    const bytes = readFileSync(new URL('../skills/sequential-thinking/SKILL.md', import.meta.url));
    expect(skills[0]?.resources).toEqual([
      { uri: URI, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, size: bytes.byteLength },
    ]);
  });

  it('2025-11-25 sees exactly what it saw before: no extension, no skill resources', async () => {
    const served = app();
    await using pair = await connectWithContext((context) => served.createServer(context), { mode: 'legacy' });
    expect(pair.client.getServerCapabilities()?.extensions).toBeUndefined();
    const { resources } = await pair.client.listResources();
    expect(resources.every((r) => !r.uri.startsWith('skill://'))).toBe(true);
  });
});
