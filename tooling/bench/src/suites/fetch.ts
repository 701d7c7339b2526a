import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import { loadCorpus } from '@mcpkit/html-corpus';
import {
  type BenchContext,
  binPath,
  callOk,
  coldStarts,
  connectStdio,
  floorSpec,
  latency,
  mib,
  ms,
  nodeSpec,
  peakRss,
  ratio,
  type Suite,
  stats,
  versus,
  withTimeout,
} from '../harness.js';

/**
 * @mcpkit/server-fetch. The reference is Python (uvx mcp-server-fetch) and cannot run here, so the
 * conversion is compared with the stack the TypeScript peers use (jsdom + @mozilla/readability +
 * turndown with the GFM plugin, as in zcaceres/fetch-mcp and fetcher-mcp), in the same process and
 * run, page by page, interleaved. Pages: the 130 real pages of @mcpkit/html-corpus (Readability's test pages).
 */

const TARGET = { conversionSpeedup: 3, coldVsFloor: 1.5, oneMbMedianMs: 150 };
/** "1 MB-class" pages: every corpus page at least this large (10 real pages, 0.73–1.63 MB). */
const BIG_PAGE_BYTES = 700_000;
const PAGE_URL = 'http://fakehost/test/page.html';

type Convert = (html: string) => Promise<number>;
type Side = 'ours' | 'jsdom';

/**
 * Each stack converts in its own worker thread, which reports the conversion time measured inside
 * it. A worker is replaced between phases: Readability on jsdom keeps memory alive even after
 * `window.close()` (about 34 MB per conversion of wikipedia-2), so one long-lived process would run
 * out of heap before the corpus is done. Ours runs in a worker too, so both are measured alike.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
(async () => {
  const { side, urls, pageUrl } = workerData;
  let convert;
  if (side === 'ours') {
    const { createHtmlConverter } = await import(urls.ours);
    const c = createHtmlConverter();
    convert = (html) => c(html, pageUrl);
  } else {
    const [{ JSDOM }, { Readability }, td, gfmModule] = await Promise.all([
      import(urls.jsdom), import(urls.readability), import(urls.turndown), import(urls.gfm),
    ]);
    const TurndownService = td.default;
    const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
    turndown.use(gfmModule.gfm ?? gfmModule.default.gfm);
    convert = async (html) => {
      const dom = new JSDOM(html, { url: pageUrl });
      try {
        const article = new Readability(dom.window.document).parse();
        return article && article.content ? turndown.turndown(article.content) : '';
      } finally {
        dom.window.close();
      }
    };
  }
  parentPort.on('message', async ({ html, gc }) => {
    if (gc && globalThis.gc) globalThis.gc();
    if (html === undefined) return parentPort.postMessage({ ms: 0 });
    const t0 = performance.now();
    await convert(html);
    parentPort.postMessage({ ms: performance.now() - t0 });
  });
  parentPort.postMessage({ ready: true });
})().catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }));
`;

interface Converter {
  convert: Convert;
  close(): Promise<void>;
}

async function startConverter(side: Side): Promise<Converter> {
  const urls = {
    ours: import.meta.resolve('@mcpkit/server-fetch'),
    jsdom: import.meta.resolve('jsdom'),
    readability: import.meta.resolve('@mozilla/readability'),
    turndown: import.meta.resolve('turndown'),
    gfm: import.meta.resolve('@joplin/turndown-plugin-gfm'),
  };
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { side, urls, pageUrl: PAGE_URL },
    resourceLimits: { maxOldGenerationSizeMb: 3072 },
  });
  const next = () =>
    new Promise<{ ms?: number; ready?: boolean; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    }).then((msg) => {
      worker.removeAllListeners('error');
      if (msg.error) throw new Error(`${side} worker: ${msg.error}`);
      return msg;
    });
  await next();
  return {
    async convert(html) {
      worker.postMessage({ html });
      return (await next()).ms ?? Number.NaN;
    },
    async close() {
      await worker.terminate();
    },
  };
}

/** Fresh workers for both stacks, warmed up (JIT) on `warmup` pages; closed after `fn`. */
async function withConverters<T>(warmup: readonly { html: string }[], fn: (sides: Record<Side, Converter>) => Promise<T>): Promise<T> {
  const sides = { ours: await startConverter('ours'), jsdom: await startConverter('jsdom') };
  try {
    for (const page of warmup) for (const side of Object.values(sides)) await side.convert(page.html);
    return await fn(sides);
  } finally {
    await Promise.all(Object.values(sides).map((side) => side.close()));
  }
}

const suite: Suite = {
  name: 'fetch',
  description: 'HTML → Markdown on 130 real pages (ours vs jsdom stack), fetch tool latency, cold start vs floor',
  async run(ctx: BenchContext) {
    const pages = loadCorpus().map(({ name, source }) => ({ name, html: source }));
    const bytes = pages.reduce((n, p) => n + Buffer.byteLength(p.html), 0);
    const largest = pages.reduce((a, b) => (Buffer.byteLength(b.html) > Buffer.byteLength(a.html) ? b : a));
    ctx.print(`corpus: ${pages.length} pages, ${mib(bytes)} (@mcpkit/html-corpus)`);

    // --- HTML → Markdown over the corpus, page by page, ours and jsdom alternating -----------------
    // Fresh workers every round (see WORKER), warmed up on a spread of 20 pages.
    const warmup = pages.filter((_, i) => i % Math.ceil(pages.length / 20) === 0);
    const rounds = ctx.scale(3, 1);
    const perPage = { ours: new Map<string, number[]>(), jsdom: new Map<string, number[]>() };
    const total = { ours: 0, jsdom: 0 };
    await withTimeout(
      (async () => {
        for (let round = 0; round < rounds; round++) {
          await withConverters(warmup, async (sides) => {
            for (const [i, page] of pages.entries()) {
              // Alternate which side goes first.
              const order = (i + round) % 2 === 0 ? (['ours', 'jsdom'] as const) : (['jsdom', 'ours'] as const);
              for (const side of order) {
                const t = await sides[side].convert(page.html);
                total[side] += t;
                perPage[side].set(page.name, [...(perPage[side].get(page.name) ?? []), t]);
              }
            }
          });
        }
      })(),
      ctx.scale(420_000, 150_000),
      'corpus conversion',
    );
    const figure = (side: 'ours' | 'jsdom') => {
      const medians = pages.map((p) => stats(perPage[side].get(p.name)!).median);
      return {
        pagesPerSecond: (pages.length * rounds) / (total[side] / 1000),
        medianPerPage: stats(medians).median,
        p90PerPage: stats(medians).p90,
        largest: stats(perPage[side].get(largest.name)!).median,
      };
    };
    const conv = { ours: figure('ours'), jsdom: figure('jsdom') };
    ctx.record('conversion', conv);
    ctx.table({
      title: `HTML → Markdown, ${pages.length} real pages × ${rounds} rounds (a worker per stack, page by page alternating)`,
      headers: [
        'stack',
        'pages/s',
        'median per page',
        'p90 per page',
        `largest page (${(Buffer.byteLength(largest.html) / 1e6).toFixed(2)} MB)`,
      ],
      rows: [
        [
          'ours: linkedom + Readability + Turndown',
          conv.ours.pagesPerSecond.toFixed(1),
          ms(conv.ours.medianPerPage),
          ms(conv.ours.p90PerPage),
          ms(conv.ours.largest),
        ],
        [
          'peers: jsdom + Readability + Turndown',
          conv.jsdom.pagesPerSecond.toFixed(1),
          ms(conv.jsdom.medianPerPage),
          ms(conv.jsdom.p90PerPage),
          ms(conv.jsdom.largest),
        ],
        [
          'jsdom ÷ ours (speed-up)',
          ratio(conv.ours.pagesPerSecond, conv.jsdom.pagesPerSecond),
          ratio(conv.jsdom.medianPerPage, conv.ours.medianPerPage),
          ratio(conv.jsdom.p90PerPage, conv.ours.p90PerPage),
          ratio(conv.jsdom.largest, conv.ours.largest),
        ],
      ],
      notes: ['per-page figures are medians over the rounds; pages/s = pages converted ÷ total conversion time'],
    });
    ctx.check(
      `conversion ≥ ${TARGET.conversionSpeedup}× faster than the jsdom stack (pages/s over the corpus)`,
      conv.ours.pagesPerSecond >= TARGET.conversionSpeedup * conv.jsdom.pagesPerSecond,
      `${ratio(conv.ours.pagesPerSecond, conv.jsdom.pagesPerSecond)} (${conv.ours.pagesPerSecond.toFixed(1)} vs ${conv.jsdom.pagesPerSecond.toFixed(1)} pages/s)`,
    );

    // --- 1 MB-class pages: every corpus page of 0.7 MB or more --------------------------------
    const big = pages
      .filter((p) => Buffer.byteLength(p.html) >= BIG_PAGE_BYTES)
      .sort((a, b) => Buffer.byteLength(a.html) - Buffer.byteLength(b.html));
    const bigRuns = ctx.scale(7, 2);
    const bigRows = [];
    const bigMedians = { ours: [] as number[], jsdom: [] as number[] };
    for (const page of big) {
      const times = { ours: [] as number[], jsdom: [] as number[] };
      await withConverters(warmup.slice(0, 5), async (sides) => {
        for (let i = 0; i < bigRuns; i++) {
          for (const side of i % 2 ? (['jsdom', 'ours'] as const) : (['ours', 'jsdom'] as const))
            times[side].push(await sides[side].convert(page.html));
        }
      });
      const o = stats(times.ours);
      const j = stats(times.jsdom);
      bigMedians.ours.push(o.median);
      bigMedians.jsdom.push(j.median);
      bigRows.push([
        page.name,
        (Buffer.byteLength(page.html) / 1e6).toFixed(2),
        ms(o.median),
        ms(o.p90),
        ms(j.median),
        ratio(j.median, o.median),
      ]);
    }
    const bigOurs = stats(bigMedians.ours);
    const bigJsdom = stats(bigMedians.jsdom);
    bigRows.push(['median of the pages', '', ms(bigOurs.median), '', ms(bigJsdom.median), ratio(bigJsdom.median, bigOurs.median)]);
    ctx.record('bigPages', { pages: big.map((p) => p.name), ours: bigMedians.ours, jsdom: bigMedians.jsdom });
    ctx.table({
      title: `1 MB-class pages: the ${big.length} corpus pages of 0.7 MB or more, ${bigRuns} conversions each`,
      headers: ['page', 'MB', 'ours median', 'ours p90', 'jsdom stack median', 'speed-up'],
      rows: bigRows,
      notes: ['wikipedia-2 is the outlier: its extracted article alone has ~6,800 elements, and Readability’s work grows with the article'],
    });
    ctx.check(
      `1 MB-class page converted in < ${TARGET.oneMbMedianMs} ms (median over the ${big.length} pages of ≥ 0.7 MB)`,
      bigOurs.median < TARGET.oneMbMedianMs,
      `${ms(bigOurs.median)} (slowest ${ms(bigOurs.max)}; jsdom stack ${ms(bigJsdom.median)})`,
    );

    // --- End-to-end: the fetch tool over stdio against a local page ------------------------------
    const typical = pages.find((p) => p.name === 'medium-1') ?? pages[0]!;
    const site = createServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.setHeader('content-type', 'text/plain');
        res.end('User-agent: *\nAllow: /\n');
        return;
      }
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(typical.html);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const { port } = site.address() as AddressInfo;
    try {
      const ours = nodeSpec('ours', binPath('@mcpkit/server-fetch', 'mcp-server-fetch'), ['--allow-host', `127.0.0.1:${port}`]);
      await using conn = await connectStdio(ours);
      const url = `http://127.0.0.1:${port}/article`;
      const call = (startIndex: number) => callOk(conn, 'fetch', { url, start_index: startIndex });
      const first = await call(0);
      const next = (first.structuredContent as { nextStartIndex: number | null }).nextStartIndex ?? 0;
      const calls = ctx.scale(200, 30);
      const fresh = await withTimeout(
        latency(() => call(0), calls, { warmup: 10 }),
        120_000,
        'fetch latency',
      );
      const cached = await withTimeout(
        latency(() => call(next), calls, { warmup: 10 }),
        120_000,
        'continuation latency',
      );
      const rss = peakRss(conn.pid);
      ctx.record('fetchTool', { page: typical.name, bytes: Buffer.byteLength(typical.html), fresh, cached, rss });
      ctx.table({
        title: `fetch tool over stdio, local page (${typical.name}, ${(Buffer.byteLength(typical.html) / 1024).toFixed(0)} KiB), ${calls} sequential calls`,
        headers: ['call', 'median', 'p90', 'p99'],
        rows: [
          ['start_index 0 (download + robots cache + convert)', ms(fresh.median), ms(fresh.p90), ms(fresh.p99)],
          [`start_index ${next} (continuation from the page cache)`, ms(cached.median), ms(cached.p90), ms(cached.p99)],
        ],
        notes: [`server peak RSS after the load: ${mib(rss?.peak)}`],
      });
    } finally {
      site.closeAllConnections();
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }

    // --- Cold start, interleaved with the floor ---------------------------------------------------
    const runs = ctx.scale(30, 5);
    const ours = nodeSpec('ours', binPath('@mcpkit/server-fetch', 'mcp-server-fetch'));
    const [cOurs, cFloor] = await coldStarts([ours, floorSpec()], runs, { warmup: ctx.scale(3, 1) });
    const cold = { ours: cOurs!.stats, floor: cFloor!.stats };
    ctx.record('coldStart', cold);
    ctx.table({
      title: `cold start: spawn → initialize result (${runs} runs each, interleaved)`,
      headers: ['server', 'median', 'p90', 'min', 'median vs floor'],
      rows: (['ours', 'floor'] as const).map((k) => [
        k,
        ms(cold[k].median),
        ms(cold[k].p90),
        ms(cold[k].min),
        ratio(cold[k].median, cold.floor.median),
      ]),
      notes: ['floor = bare Node process answering initialize (src/floor.mjs); the Python reference cannot run here'],
    });
    ctx.check(
      `cold start ≤ ${TARGET.coldVsFloor}× floor (median)`,
      cold.ours.median <= TARGET.coldVsFloor * cold.floor.median,
      versus(cold.ours.median, cold.floor.median),
    );
  },
};

export default suite;
