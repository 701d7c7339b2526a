import { fileURLToPath } from 'node:url';
import { runBin, spawnStdio } from '@mcpkit/protocol-core/testing';
import { expect, it } from 'vitest';
import { makePdf, routes, send, startServer, text } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));

it('serves the fetch tool and prompt over stdio: HTML, PDF (lazily loaded), and the SSRF refusal', async () => {
  await using site = await startServer(
    routes({
      '/robots.txt': send('User-agent: *\nAllow: /', 'text/plain'),
      '/article': send(
        '<html><head><title>Hi</title></head><body><article><h1>Title</h1><p>Stdio works fine.</p></article></body></html>',
        'text/html',
      ),
      '/doc.pdf': send(makePdf(['PDF over stdio']), 'application/pdf'),
    }),
  );
  await using other = await startServer(send('<p>secret</p>', 'text/html'));
  await using proc = await spawnStdio(bin, { args: ['--allow-host', `127.0.0.1:${site.port}`, '--log-level', 'debug'] });

  expect((await proc.client.listTools()).tools.map((t) => t.name)).toEqual(['fetch']);
  expect((await proc.client.listPrompts()).prompts.map((p) => p.name)).toEqual(['fetch']);

  const article = await proc.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/article` } });
  expect(text(article)).toBe(`Contents of ${site.origin}/article:\n## Title\n\nStdio works fine.`);

  const pdf = await proc.client.callTool({ name: 'fetch', arguments: { url: `${site.origin}/doc.pdf` } });
  expect(text(pdf)).toBe(`Contents of ${site.origin}/doc.pdf:\nPDF over stdio`);

  const refused = await proc.client.callTool({ name: 'fetch', arguments: { url: `${other.origin}/` } });
  expect(refused.isError).toBe(true);
  expect(text(refused)).toContain('is a loopback address');
  expect(other.requests).toHaveLength(0);

  const prompt = await proc.client.getPrompt({ name: 'fetch', arguments: { url: `${site.origin}/article` } });
  expect(prompt.description).toBe(`Contents of ${site.origin}/article`);
  expect(proc.stderr()).toContain(`GET ${site.origin}/article`);
});

it('exits 2 with one line naming the flag for a bad --allow-host', async () => {
  const run = await runBin(bin, { args: ['--allow-host', 'example.com:http'] });
  expect(run.code).toBe(2);
  expect(run.stderr.trim()).toBe(
    'mcp-server-fetch: invalid value for --allow-host: "example.com:http" has an invalid port (see mcp-server-fetch --help)',
  );
});
