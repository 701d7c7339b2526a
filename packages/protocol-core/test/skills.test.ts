import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpRequestContext } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpServer, defineTool, registerTools, textResult } from '../src/index.js';
import { skillExamples } from '../src/skills/examples.js';
import { serverSkills } from '../src/skills/index.js';
import { checkSkills, connectWithContext } from '../src/testing/index.js';

const greet = defineTool({
  name: 'say_hello',
  title: 'Say hello',
  description: 'Greets someone',
  input: { name: z.string(), times: z.number().int().min(1).optional() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ name }) => textResult(`hello ${name}`),
});

/** A folder with one skill whose SKILL.md body is `body`. */
function skillsFolder(body: string, extra: Record<string, string> = {}): URL {
  const root = mkdtempSync(join(tmpdir(), 'skills-'));
  mkdirSync(join(root, 'greeting'));
  writeFileSync(join(root, 'greeting', 'SKILL.md'), `---\nname: greeting\ndescription: Greets people.\n---\n\n${body}\n`);
  for (const [path, text] of Object.entries(extra)) {
    mkdirSync(join(root, 'greeting', path, '..'), { recursive: true });
    writeFileSync(join(root, 'greeting', path), text);
  }
  return pathToFileURL(`${root}/`);
}

function app(root: URL) {
  const skills = serverSkills(root, { prefix: 'test' });
  return (context: McpRequestContext) => {
    const server = skills.attach(createMcpServer({ name: 'skills-test', version: '0.0.0' }), context);
    registerTools(server, {}, [greet]);
    return server;
  };
}

const GOOD = 'Use `say_hello` with a `name`:\n\n```json\n{"tool": "say_hello", "arguments": {"name": "Ada", "times": 2}}\n```';

describe('serverSkills + checkSkills', () => {
  it('a good skill has no problems; its files are listed with digests and sizes, SKILL.md in resources/list', async () => {
    await using pair = await connectWithContext(app(skillsFolder(GOOD, { 'references/MORE.md': '# more\n' })));
    const report = await checkSkills(pair.client);
    expect(report.problems).toEqual([]);
    expect(report.examples).toBe(1);
    expect(report.skills[0]?.resources).toHaveLength(2);
    // No directoryRead unless asked for.
    expect(pair.client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/skills': {} });
    const { resources } = await pair.client.listResources();
    expect(resources).toEqual([
      expect.objectContaining({ uri: 'skill://test/greeting/SKILL.md', name: 'greeting', mimeType: 'text/markdown' }),
    ]);
  });

  it('reports an unknown tool, arguments that fail the schema, an unknown backticked name and bad JSON', async () => {
    const body = [
      'Call `say_helo` or `say_hello`.',
      '```json\n{"tool": "wave", "arguments": {}}\n```',
      '  ```json\n  {"tool": "say_hello", "arguments": {"name": 3}}\n  ```',
      '```json\n{"tool": "say_hello", "arguments": \n```',
    ].join('\n\n');
    await using pair = await connectWithContext(app(skillsFolder(body)));
    const { problems } = await checkSkills(pair.client);
    expect(problems).toEqual([
      expect.stringMatching(/line \d+: not JSON/),
      expect.stringMatching(/example calls wave, which the server does not list/),
      expect.stringMatching(/say_hello arguments: .*name/),
      expect.stringMatching(/`say_helo` is neither a tool nor a tool's field/),
    ]);
  });

  it('serves nothing to a 2025-11-25 session or without a context', async () => {
    await using pair = await connectWithContext(app(skillsFolder(GOOD)), { mode: 'legacy' });
    expect(pair.client.getServerCapabilities()?.extensions).toBeUndefined();
    expect(pair.client.getServerCapabilities()?.resources).toBeUndefined();
    const skills = serverSkills(skillsFolder(GOOD), { prefix: 'test' });
    const server = createMcpServer({ name: 'x', version: '0' });
    expect(skills.attach(server, undefined)).toBe(server);
  });

  it('a skill the SDK finds invalid fails the request, not the process', async () => {
    const root = mkdtempSync(join(tmpdir(), 'skills-'));
    mkdirSync(join(root, 'Bad_Name'));
    writeFileSync(join(root, 'Bad_Name', 'SKILL.md'), '---\nname: Bad_Name\ndescription: x\n---\n');
    await using pair = await connectWithContext(app(pathToFileURL(`${root}/`)));
    await expect(pair.client.request({ method: 'skills/list', params: {} } as never, z.any())).rejects.toThrow();
    expect(() => serverSkills(pathToFileURL(`${root}/`), { prefix: 'Bad Prefix' })).toThrow(TypeError);
  });

  it('skillExamples reads arrays of calls and indented fences', () => {
    const { examples, problems } = skillExamples(
      '1. x\n\n   ```json\n   [{"tool": "a", "arguments": {}}, {"tool": "b", "arguments": {"k": 1}}]\n   ```\n',
    );
    expect(problems).toEqual([]);
    expect(examples.map((e) => e.tool)).toEqual(['a', 'b']);
  });
});
