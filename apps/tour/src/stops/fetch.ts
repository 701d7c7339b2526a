import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { callTool, defineStop } from '../stop.js';

// A small article page, served from 127.0.0.1 so the tour needs no network.
const ARTICLE = `<!doctype html><html><head><meta charset="utf-8"><title>Field notes: lighthouse keepers</title></head>
<body><nav><a href="/">Home</a> · <a href="/about">About</a> · <a href="/shop">Shop</a></nav>
<article><h1>Field notes: lighthouse keepers</h1>
<p>For two centuries the keepers of the <a href="/coast">northern coast</a> kept a log of every ship, storm and
broken lens. Their notebooks are the best weather record we have for the period.</p>
<h2>What they wrote down</h2>
<ul><li>Wind direction and force, four times a day</li><li>Ships passing, by name when they could read it</li>
<li>Fuel used by the lamp, to the pint</li></ul>
<p>A typical entry reads:</p><pre><code>1843-11-02  NW 7, heavy sea. Brig "Hope" passed 3pm. Oil 4 pints.</code></pre>
<table><thead><tr><th>Decade</th><th>Logs kept</th></tr></thead><tbody><tr><td>1840s</td><td>212</td></tr><tr><td>1850s</td><td>348</td></tr></tbody></table>
<p>Many logs survive only because a keeper's family kept them in an attic. Archivists are now scanning them,
one page at a time, and volunteers transcribe the handwriting into a shared catalogue.</p></article>
<footer>© Coastal Archive · Privacy · Cookies</footer></body></html>`;

export const fetchStop = defineStop({
  title: 'fetch: web pages to clean Markdown, safe by default',
  pkg: '@mcpkit/server-fetch',
  async prepare() {
    const server = createServer((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(200, { 'Content-Type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n');
      } else if (req.url === '/notes') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(ARTICLE);
      } else if (req.url === '/data.json') {
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"logs":[{"year":1843,"ships":12}],"ok":true}');
      } else {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not here');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return {
      // Loopback is refused by default (SSRF); the tour opens exactly its own test server.
      args: ['--allow-host', `127.0.0.1:${port}`],
      cleanup: () => new Promise<void>((resolve) => server.close(() => resolve())),
      state: { base: `http://127.0.0.1:${port}` },
    };
  },
  async visit(client, t, { base }) {
    await callTool(client, t, 'fetch', { url: `${base}/notes`, max_length: 600 });
    t.note('The reply ends with the start_index to continue from; the page is not downloaded again:');
    await callTool(client, t, 'fetch', { url: `${base}/notes`, max_length: 600, start_index: 600 });
    await callTool(client, t, 'fetch', { url: `${base}/data.json` });
    t.note('robots.txt is honoured for the tool (not for the user-driven prompt):');
    await callTool(client, t, 'fetch', { url: `${base}/private/report` });
    t.note('Private and metadata addresses are refused unless allowed by flag — whatever the spelling:');
    await callTool(client, t, 'fetch', { url: 'http://169.254.169.254/latest/meta-data/' });
    await callTool(client, t, 'fetch', { url: 'http://2130706433/' });
    t.call('prompts/get fetch', { url: `${base}/notes` });
    const prompt = await client.getPrompt({ name: 'fetch', arguments: { url: `${base}/notes` } });
    const first = prompt.messages[0]?.content;
    t.reply(first && first.type === 'text' ? first.text : JSON.stringify(first));
  },
});
