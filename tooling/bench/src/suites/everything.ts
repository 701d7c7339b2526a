import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  type BenchContext,
  coldStarts,
  connectStdio,
  floorSpec,
  interleavedLoad,
  ms,
  nodeSpec,
  peakRss,
  ratio,
  type SpawnSpec,
  type StdioConnection,
  type Suite,
  versus,
} from '../harness.js';
import { checkVsReference, loadTable, type SideFigures } from '../vsReference.js';

/**
 * @mcpkit/server-everything against both published references, each profile beside the release it
 * replaces: `--profile legacy` vs @modelcontextprotocol/server-everything@2025.11.25 and
 * `--profile current` vs @2026.8.31. All run from their bins over stdio in this run; the call
 * timed is `echo` { message } (the same tool and arguments in both releases).
 *
 * The references are devDependencies of packages/server-everything, not of this package (the
 * legacy one under the npm alias `reference-everything-legacy`), so they are resolved from that
 * package's manifest. Once tooling/bench depends on them itself, `binPath(...)` can replace
 * `referenceBin`.
 */

/**
 * Targets from issue 7 (cold start ≤ 0.6× the reference; echo latency ≤ 1.5× the floor's) and issue 33 §2 (against
 * the reference: latency and server CPU per call ≤ 0.8×, calls/s ≥ 1.2× at 8 and at 64 in flight).
 */
const TARGET = { coldVsReference: 0.6, latencyVsFloor: 1.5, latencyVsReference: 0.8, cpuVsReference: 0.8, throughputVsReference: 1.2 };
const CONCURRENCY = [8, 64] as const;
const MESSAGE = 'The quick brown fox jumps over the lazy dog.';

type Side = 'ours' | 'reference' | 'floor';

/** Bin of a reference installed as a devDependency of packages/server-everything (`bin` in its manifest). */
function referenceBin(repoRoot: string, pkg: string): string {
  const require = createRequire(join(repoRoot, 'packages/server-everything/package.json'));
  const manifestPath = require.resolve(`${pkg}/package.json`);
  const manifest = require(manifestPath) as { bin?: string | Record<string, string> };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.['mcp-server-everything'];
  if (!bin) throw new Error(`${pkg}: no mcp-server-everything bin in ${manifestPath}`);
  return join(dirname(manifestPath), bin);
}

function callEcho(conn: StdioConnection) {
  return conn.client.callTool({ name: 'echo', arguments: { message: MESSAGE } });
}

/** Fails loudly unless `echo` answers as the references do, so the bench never times an error answer. */
async function verify(conn: StdioConnection, label: string): Promise<void> {
  const { tools } = await conn.client.listTools();
  if (!tools.some((t) => t.name === 'echo')) throw new Error(`${label}: no echo tool (has ${tools.map((t) => t.name).join(', ')})`);
  const res = await callEcho(conn);
  const content = res.content as { type: string; text?: string }[] | undefined;
  if (res.isError || content?.[0]?.text !== `Echo: ${MESSAGE}`) {
    throw new Error(`${label}: unexpected echo result ${JSON.stringify(res).slice(0, 400)}`);
  }
}

const suite: Suite = {
  name: 'everything',
  description: 'ours (--profile legacy / current) vs @modelcontextprotocol/server-everything 2025.11.25 / 2026.8.31 (stdio, echo)',
  async run(ctx: BenchContext) {
    const oursBin = join(ctx.repoRoot, 'packages/server-everything/dist/index.js');
    if (!existsSync(oursBin)) throw new Error(`${oursBin} is missing: build it first (cd packages/server-everything && npx tsup)`);
    const pairs = [
      {
        profile: 'legacy' as const,
        ours: nodeSpec('ours --profile legacy', oursBin, ['--profile', 'legacy']),
        reference: nodeSpec('reference 2025.11.25', referenceBin(ctx.repoRoot, 'reference-everything-legacy')),
      },
      {
        profile: 'current' as const,
        ours: nodeSpec('ours --profile current', oursBin, ['--profile', 'current']),
        reference: nodeSpec('reference 2026.8.31', referenceBin(ctx.repoRoot, '@modelcontextprotocol/server-everything')),
      },
    ];
    const floor = floorSpec();
    for (const p of pairs) ctx.print(`${p.ours.label}: ${p.ours.args.join(' ')}\n${p.reference.label}: ${p.reference.args.join(' ')}`);

    // Cold start: spawn → first tools/list result (the current reference and ours register tools
    // after the handshake), all five interleaved. The legacy reference's notification timers keep it
    // alive after stdin closes, so every child is sent SIGTERM once measured (`stop: 'kill'`).
    const runs = ctx.scale(30, 5);
    const specs: SpawnSpec[] = [...pairs.flatMap((p) => [p.ours, p.reference]), floor];
    const cold = await coldStarts(specs, runs, { warmup: ctx.scale(3, 1), until: 'tools/list', stop: 'kill' });
    const coldOf = (spec: SpawnSpec) => cold[specs.indexOf(spec)]!.stats;
    const floorCold = coldOf(floor);
    ctx.record('coldStart', Object.fromEntries(cold.map((c) => [c.label, c.stats])));
    ctx.table({
      title: `cold start: spawn → first tools/list result (${runs} runs each, interleaved)`,
      headers: ['server', 'median', 'p90', 'min', 'max', 'median vs floor', 'median vs its reference'],
      rows: [
        ...pairs.flatMap((p) => [[p.ours.label, p.ours, p.reference] as const, [p.reference.label, p.reference, p.reference] as const]),
        [floor.label, floor, undefined] as const,
      ].map(([label, spec, ref]) => {
        const s = coldOf(spec);
        return [
          label,
          ms(s.median),
          ms(s.p90),
          ms(s.min),
          ms(s.max),
          ratio(s.median, floorCold.median),
          ref ? ratio(s.median, coldOf(ref).median) : '',
        ];
      }),
      notes: [
        'initialize, then notifications/initialized + tools/list as soon as its result arrives, as a client does',
        'floor = bare Node process answering initialize and tools/list (src/floor.mjs)',
      ],
    });
    for (const p of pairs) {
      const o = coldOf(p.ours).median;
      const r = coldOf(p.reference).median;
      ctx.check(
        `${p.profile}: cold start ≤ ${TARGET.coldVsReference}× ${p.reference.label} (median)`,
        o <= TARGET.coldVsReference * r,
        versus(o, r),
      );
    }

    // Warm load per profile: ours, its reference and the floor connected at once, measured in
    // alternating blocks so a burst of machine noise does not land on one side only.
    const counts = { calls: ctx.scale(2000, 200), total: ctx.scale(4000, 400), blocks: ctx.scale(4, 1) };
    await using floorConn = await connectStdio(floor);
    await verify(floorConn, 'floor');
    for (const p of pairs) {
      await using oursConn = await connectStdio(p.ours);
      await using refConn = await connectStdio(p.reference);
      const sides = [
        { key: 'ours' as Side, label: p.ours.label, conn: oursConn },
        { key: 'reference' as Side, label: p.reference.label, conn: refConn },
        { key: 'floor' as Side, label: floor.label, conn: floorConn },
      ];
      for (const side of sides) await verify(side.conn, side.label);
      const figures = await interleavedLoad(
        sides.map((s) => ({ label: s.label, call: () => callEcho(s.conn), pid: s.conn.pid })),
        { ...counts, concurrency: CONCURRENCY, warmup: 200 },
      );
      const load = {} as Record<Side, SideFigures>;
      for (const [i, side] of sides.entries()) {
        load[side.key] = { ...figures[i]!, rss: side.key === 'floor' ? undefined : peakRss(side.conn.pid) };
      }
      ctx.record(`load.${p.profile}`, load);
      loadTable(ctx, `${p.profile}: tools/call echo over stdio`, counts, [
        [p.ours.label, load.ours],
        [p.reference.label, load.reference],
        ['floor', load.floor],
      ]);
      ctx.check(
        `${p.profile}: echo latency ≤ ${TARGET.latencyVsFloor}× floor (median)`,
        load.ours.latency.median <= TARGET.latencyVsFloor * load.floor.latency.median,
        versus(load.ours.latency.median, load.floor.latency.median),
      );
      checkVsReference(ctx, p.profile, load.ours, load.reference, TARGET);
    }
  },
};

export default suite;
