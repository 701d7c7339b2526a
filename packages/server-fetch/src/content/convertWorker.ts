/**
 * The conversion worker thread (built as `dist/convertWorker.js`; see conversionPool.ts): converts one
 * response at a time and posts the result back. The main thread terminates it at the fetch deadline,
 * so nothing here needs to watch the clock.
 */
import { parentPort } from 'node:worker_threads';
import type { ConversionReply, ConversionRequest } from './conversionPool.js';
import { convertBody } from './convert.js';
import { createHtmlConverter } from './html.js';

const port = parentPort;
if (!port) throw new Error('convertWorker.js must be started as a worker thread');
// A worker's stdout ends up on the process's stdout, which is the MCP protocol on stdio: whatever a
// library prints goes to stderr instead. (Reading the worker's stdout in the main thread instead would
// keep the process alive.)
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
const html = createHtmlConverter();

port.on('message', async ({ id, body, contentType, url, raw }: ConversionRequest) => {
  let reply: ConversionReply;
  try {
    reply = { id, ok: true, result: await convertBody(body, contentType, url, { raw, html }) };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    reply = { id, ok: false, error: { name: e.name, message: e.message, stack: e.stack ?? '' } };
  }
  port.postMessage(reply);
});
