import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { binOf, type StandaloneStop, type Stop } from './stop.js';
import { stops as allStops } from './stops/index.js';
import { createTranscript, type Transcript } from './transcript.js';

export interface TourResult {
  ok: boolean;
  failures: string[];
  transcript: string[];
}

/** How the tour's client picks the protocol version: `auto` asks `server/discover` first, so each server speaks 2026-07-28. */
const VERSION_NEGOTIATION = { mode: 'auto' } as const;

/** The version and era the client landed on, for people: `MCP 2026-07-28 (2026 era: server/discover, no initialize)`. */
function eraOf(client: Client): string {
  const how = client.getProtocolEra() === 'modern' ? '2026 era: server/discover, no initialize' : '2025 era: the initialize handshake';
  return `MCP ${client.getNegotiatedProtocolVersion() ?? '?'} (${how})`;
}

/**
 * Starts each stop's built bin over stdio with the official SDK v2 client in `auto` negotiation (it probes
 * `server/discover` on a short-lived sibling process, then speaks 2026-07-28) and walks through its tools.
 */
// biome-ignore lint/suspicious/noExplicitAny: see stops/index.ts
export async function runTour(stops: (Stop<any> | StandaloneStop)[] = allStops, t: Transcript = createTranscript()): Promise<TourResult> {
  const failures: string[] = [];
  for (const stop of stops) {
    t.heading(stop.title);
    if ('run' in stop) {
      const missing = stop.pkgs.map(binOf).filter((bin) => !existsSync(bin));
      if (missing.length > 0) {
        failures.push(`${stop.title}: ${missing.join(', ')} not built (run: npx -y pnpm@10 build)`);
        t.note(`skipped: ${missing.join(', ')} not built`);
        continue;
      }
      try {
        await stop.run(t);
      } catch (error) {
        failures.push(`${stop.title}: ${error instanceof Error ? error.message : String(error)}`);
        t.note(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
      }
      continue;
    }
    const bin = binOf(stop.pkg);
    if (!existsSync(bin)) {
      failures.push(`${stop.pkg}: ${bin} is not built (run: npx -y pnpm@10 build)`);
      t.note(`skipped: ${bin} is not built`);
      continue;
    }
    const { args = [], env = {}, cleanup, state } = await stop.prepare();
    t.note(`$ mcp-server-${stop.pkg.split('/server-')[1]} ${args.join(' ')}`.trimEnd());
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, ...args],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const client = new Client({ name: 'mcpkit-tour', version: '0.0.0' }, { versionNegotiation: VERSION_NEGOTIATION });
    const started = performance.now();
    try {
      await client.connect(transport);
      const info = client.getServerVersion();
      t.note(`connected to ${info?.name} ${info?.version} in ${Math.round(performance.now() - started)} ms, speaking ${eraOf(client)}`);
      await stop.visit(client, t, state);
    } catch (error) {
      failures.push(`${stop.pkg}: ${error instanceof Error ? error.message : String(error)}`);
      t.note(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
      if (stderr.trim()) t.note(`server stderr:\n${stderr.trim()}`);
    } finally {
      await client.close();
      await cleanup?.();
    }
  }
  t.heading(failures.length ? `tour finished with ${failures.length} failure(s)` : 'tour finished');
  for (const f of failures) t.note(f);
  return { ok: failures.length === 0, failures, transcript: t.lines() };
}
