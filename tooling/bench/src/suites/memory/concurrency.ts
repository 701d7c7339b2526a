import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type BenchContext, type Cell, connectStdio, nodeSpec, withTimeout } from '../../harness.js';
import type { Side } from './ops.js';

/** 4 processes × 250 concurrent create_entities on one file: how many entities survive. */
export async function concurrency(ctx: BenchContext, dir: string, oursBin: string, refBin: string): Promise<void> {
  const PROCS = 4;
  const PER = 250;
  const runs = ctx.scale(3, 1);
  const rows: Cell[][] = [];
  const kept: Record<Side, number[]> = { ours: [], reference: [] };
  for (let run = 0; run < runs; run++) {
    for (const side of ['ours', 'reference'] as const) {
      const file = join(dir, `concurrent-${side}-${run}.jsonl`);
      writeFileSync(file, '');
      const spec = nodeSpec(side, side === 'ours' ? oursBin : refBin, side === 'ours' ? ['--log-level', 'error'] : [], {
        MEMORY_FILE_PATH: file,
      });
      const conns = await Promise.all(Array.from({ length: PROCS }, () => connectStdio(spec)));
      const t0 = performance.now();
      let errors = 0;
      try {
        await withTimeout(
          Promise.all(
            conns.flatMap((c, p) =>
              Array.from({ length: PER }, (_, i) =>
                c.client
                  .callTool({
                    name: 'create_entities',
                    arguments: { entities: [{ name: `p${p}-${i}`, entityType: 't', observations: ['o'] }] },
                  })
                  .then((r) => {
                    if (r.isError) errors++;
                  }),
              ),
            ),
          ),
          180_000,
          `${side} concurrent creates`,
        );
      } finally {
        for (const c of conns) await c.close();
      }
      const seconds = (performance.now() - t0) / 1000;
      const count = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() && JSON.parse(l).type === 'entity').length;
      kept[side].push(count);
      rows.push([`${side} (run ${run + 1})`, `${count} / ${PROCS * PER}`, errors, `${((PROCS * PER) / seconds).toFixed(0)} calls/s`]);
    }
  }
  ctx.table({
    title: `${PROCS} processes × ${PER} concurrent create_entities on one file`,
    headers: ['server', 'entities in the file afterwards', 'error results', 'throughput'],
    rows,
    notes: ['counted in the file after every process exited (what the next start loads)'],
  });
  ctx.record('concurrency', kept);
  ctx.check(
    `4×250 concurrent creates keep exactly 1000 entities, every run`,
    kept.ours.every((k) => k === PROCS * PER),
    `ours kept ${kept.ours.join(', ')}; reference kept ${kept.reference.join(', ')}`,
  );
}
