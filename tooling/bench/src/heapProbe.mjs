/**
 * Preloaded into a server the `http` suite measures (`node --expose-gc --import heapProbe.mjs <bin>`):
 * on SIGUSR2 it runs a full garbage collection (twice, so objects freed by finalizers of the first go
 * too) and writes one line `heap-probe {process.memoryUsage()}` to stderr. Nothing else changes in the
 * server; without --expose-gc the line says `"gc":false` and the heap figure includes garbage.
 */
process.on('SIGUSR2', () => {
  const gc = globalThis.gc;
  if (typeof gc === 'function') {
    gc();
    gc();
  }
  process.stderr.write(`heap-probe ${JSON.stringify({ ...process.memoryUsage(), gc: typeof gc === 'function' })}\n`);
});
