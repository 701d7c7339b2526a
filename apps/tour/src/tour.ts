import { existsSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { binOf, type StandaloneStop, type Stop } from './stop.js';
import { stops as allStops } from './stops/index.js';
import { createTranscript, type Transcript } from './transcript.js';

export interface TourResult {
  ok: boolean;
  failures: string[];
  transcript: string[];
}

/** Starts each stop's built bin over stdio with a real SDK client and walks through its tools. */
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
    const client = new Client({ name: 'mcpkit-tour', version: '0.0.0' });
    const started = performance.now();
    try {
      await client.connect(transport);
      const info = client.getServerVersion();
      t.note(`initialized ${info?.name} ${info?.version} in ${Math.round(performance.now() - started)} ms`);
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
