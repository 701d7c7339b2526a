// The built bin in both protocol eras, with the official v2 client in each of its negotiation modes: `legacy`
// (2025-11-25, `initialize`), `auto` and pinned `2026-07-28` (`server/discover`, stateless), over stdio and over
// Streamable HTTP. Each mode lists and calls a tool of every profile; the conformance profile's elicitation tool
// also runs end to end (2026-07-28: `input_required` rounds sealed with the process's key; 2025: a real request).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkSkills, connectHttpV2, spawnStdio, V2_MODES, type V2Mode } from '@mcpkit/protocol-core/testing';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const ERA = { legacy: 'legacy', auto: 'modern', '2026-07-28': 'modern' } as const;
const VERSION = { legacy: '2025-11-25', auto: '2026-07-28', '2026-07-28': '2026-07-28' } as const;

/** One tool per profile, its arguments and the text it answers. */
const PROFILES = [
  { profile: 'legacy', tool: 'echo', args: { message: 'hi' }, text: 'Echo: hi' },
  { profile: 'current', tool: 'get-sum', args: { a: 2, b: 3 }, text: 'The sum of 2 and 3 is 5.' },
  { profile: 'conformance', tool: 'test_simple_text', args: {}, text: 'This is a simple text response for testing.' },
] as const;

const textOf = (result: { content?: unknown }) => (result.content as { type: string; text?: string }[])[0]?.text;

/** Starts the bin on an ephemeral port; resolves once it prints its URL. */
async function startHttpBin(args: string[]): Promise<{ url: string } & AsyncDisposable> {
  const child = spawn(process.execPath, [bin, '--transport', 'http', '--host', '127.0.0.1', '--port', '0', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL after 15 s:\n${stderr}`)), 15_000);
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /listening on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${stderr}`)));
  });
  return {
    url,
    async [Symbol.asyncDispose]() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function checkProfile(client: Client, mode: V2Mode, { tool, args, text }: (typeof PROFILES)[number]) {
  expect(client.getProtocolEra()).toBe(ERA[mode]);
  expect(client.getNegotiatedProtocolVersion()).toBe(VERSION[mode]);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain(tool);
  expect(textOf(await client.callTool({ name: tool, arguments: args }))).toBe(text);
}

/** The conformance profile's `test_elicitation`, answered by this client's user. */
async function checkElicitation(client: Client) {
  let asked = 0;
  client.setRequestHandler('elicitation/create', async () => {
    asked++;
    return { action: 'accept', content: { username: 'ada', email: 'ada@example.com' } };
  });
  const result = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who?' } });
  expect(textOf(result)).toBe('User response: action=accept, content={"username":"ada","email":"ada@example.com"}');
  expect(asked).toBe(1);
}

/**
 * The `current` profile's `get-roots-list`, registered only for a client that declares `roots`: after `initialized`
 * (2025), or listed per request from the request's `_meta` (2026-07-28: one server serves the whole stdio
 * connection, a fresh one each HTTP request).
 */
async function checkRootsTool(client: Client) {
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  expect((await client.listTools()).tools.map((t) => t.name)).toContain('get-roots-list');
  const result = await client.callTool({ name: 'get-roots-list', arguments: {} });
  expect(textOf(result)).toContain('Current MCP Roots (1 total):\n\n1. work\n   URI: file:///work');
}

describe('mcp-server-everything in both eras (built bin, v2 client)', () => {
  for (const mode of V2_MODES) {
    for (const profile of PROFILES) {
      it(`stdio, ${mode} mode, ${profile.profile} profile: lists and calls ${profile.tool}`, async () => {
        await using proc = await spawnStdio(bin, { mode, args: ['--profile', profile.profile] });
        await checkProfile(proc.client, mode, profile);
      });
      it(`Streamable HTTP, ${mode} mode, ${profile.profile} profile: lists and calls ${profile.tool}`, async () => {
        await using server = await startHttpBin(['--profile', profile.profile]);
        await using http = await connectHttpV2(server.url, { mode });
        await checkProfile(http.client, mode, profile);
      });
    }
    it(`stdio and Streamable HTTP, ${mode} mode: current's skill is served to 2026-07-28 clients only`, async () => {
      // The skills support is loaded on the first 2026-07-28 server (protocol-core's skills/support.ts): the bin
      // must still serve the skill on the first request of either transport, and a 2025 session sees none.
      const expected = ERA[mode] === 'modern' ? ['skill://everything/everything-tour/SKILL.md'] : [];
      const check = async (client: Client) => {
        const report = await checkSkills(client);
        expect(report.skills.map((s) => s.uri)).toEqual(expected);
        if (expected.length > 0) expect(report.problems).toEqual([]);
      };
      // The skill names the capability-gated tools too: a client declaring them.
      const capabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };
      await using proc = await spawnStdio(bin, { mode, capabilities, args: ['--profile', 'current'] });
      await check(proc.client);
      await using server = await startHttpBin(['--profile', 'current']);
      await using http = await connectHttpV2(server.url, { mode, capabilities });
      await check(http.client);
    });
    it(`stdio and Streamable HTTP, ${mode} mode: test_elicitation gets the user's answer`, async () => {
      const capabilities = { elicitation: {} };
      await using proc = await spawnStdio(bin, { mode, capabilities, args: ['--profile', 'conformance'] });
      await checkElicitation(proc.client);
      await using server = await startHttpBin(['--profile', 'conformance']);
      await using http = await connectHttpV2(server.url, { mode, capabilities });
      await checkElicitation(http.client);
    });
    it(`stdio and Streamable HTTP, ${mode} mode: current's get-roots-list is listed and answers for a client with roots`, async () => {
      const capabilities = { roots: {} };
      await using proc = await spawnStdio(bin, { mode, capabilities, args: ['--profile', 'current'] });
      await checkRootsTool(proc.client);
      await using server = await startHttpBin(['--profile', 'current']);
      await using http = await connectHttpV2(server.url, { mode, capabilities });
      await checkRootsTool(http.client);
      await using without = await connectHttpV2(server.url, { mode });
      expect((await without.client.listTools()).tools.map((t) => t.name)).not.toContain('get-roots-list');
    });
    it(`stdio, ${mode} mode: legacy's listRoots is listed to a client with roots only`, async () => {
      // Over stdio a 2026-07-28 connection keeps one server, which never sees an `initialize`: the listing reads
      // each request's `_meta`.
      await using withRoots = await spawnStdio(bin, { mode, capabilities: { roots: {} }, args: ['--profile', 'legacy'] });
      expect((await withRoots.client.listTools()).tools.map((t) => t.name)).toContain('listRoots');
      await using without = await spawnStdio(bin, { mode, args: ['--profile', 'legacy'] });
      expect((await without.client.listTools()).tools.map((t) => t.name)).not.toContain('listRoots');
    });
  }
});
