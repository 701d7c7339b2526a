/** The git suite's cold start (spawn → first tools/list) against the TS reference servers, and what the bench says about the build it runs. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { type BenchContext, binPath, coldStarts, floorSpec, ms, nodeSpec, ratio, type SpawnSpec, versus } from '../harness.js';
import { TARGET } from './warm.js';

export async function coldStart(ctx: BenchContext, ours: SpawnSpec, scratch: string): Promise<void> {
  const refs = [
    nodeSpec('reference server-memory', binPath('@modelcontextprotocol/server-memory', 'mcp-server-memory'), [], {
      MEMORY_FILE_PATH: join(scratch, 'memory.jsonl'),
    }),
    nodeSpec(
      'reference server-sequential-thinking',
      binPath('@modelcontextprotocol/server-sequential-thinking', 'mcp-server-sequential-thinking'),
      [],
      { DISABLE_THOUGHT_LOGGING: 'true' },
    ),
  ];
  const floor = floorSpec();
  const specs = [ours, ...refs, floor];
  const runs = ctx.scale(20, 5);
  const cold = await coldStarts(specs, runs, { warmup: ctx.scale(3, 1), until: 'tools/list', stop: 'kill' });
  const of = (spec: SpawnSpec) => cold[specs.indexOf(spec)]!.stats;
  ctx.record('coldStart', Object.fromEntries(cold.map((c) => [c.label, c.stats])));
  ctx.table({
    title: `cold start: spawn → first tools/list result (${runs} runs each, interleaved)`,
    headers: ['server', 'median', 'p90', 'min', 'max', 'ours / it', 'vs floor'],
    rows: specs.map((spec) => {
      const s = of(spec);
      return [
        spec.label,
        ms(s.median),
        ms(s.p90),
        ms(s.min),
        ms(s.max),
        spec === ours ? '' : ratio(of(ours).median, s.median),
        ratio(s.median, of(floor).median),
      ];
    }),
    notes: [
      `ours = ${ours.args.join(' ')}`,
      'references = the TS reference servers (Node start of a server on the SDK; the git reference is Python and is not run here)',
      'floor = bare Node process answering initialize and tools/list (src/floor.mjs)',
    ],
  });
  for (const ref of refs) {
    ctx.check(
      `cold start ≤ ${TARGET.coldVsReference}× ${ref.label} (median)`,
      of(ours).median <= TARGET.coldVsReference * of(ref).median,
      versus(of(ours).median, of(ref).median),
    );
  }
}

/** The bundle's (dist/cli.js next to the loader, else the bin's) modification time, ISO. */
export function builtAt(bin: string): string {
  const bundle = join(dirname(bin), 'cli.js');
  return statSync(existsSync(bundle) ? bundle : bin).mtime.toISOString();
}

/** Files under `dir` modified after `bin` (relative paths): the build does not have them. */
export function newerThan(dir: string, bin: string): string[] {
  const bundle = join(dirname(bin), 'cli.js');
  const built = statSync(existsSync(bundle) ? bundle : bin).mtimeMs;
  const out: string[] = [];
  for (const ent of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!ent.isFile()) continue;
    const file = join(ent.parentPath, ent.name);
    if (statSync(file).mtimeMs > built) out.push(relative(dir, file));
  }
  return out;
}
