/**
 * `text/html` bodies without an `<html>` element (issue 22, item 8): linkedom, unlike a browser's
 * parser, builds no `<html>`/`<body>` around them, and reading `document.title` or `body` of such a
 * document threw, so the tool failed "unexpectedly". They must answer as the reference does: the text
 * when there is some, else `<error>Page failed to be simplified from HTML</error>`. Through the real
 * client, served from 127.0.0.1, converted in-process and in the worker thread.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SIMPLIFY_FAILED } from '../src/content/html.js';
import { createFetcher, type Fetcher } from '../src/server.js';
import { callFetch, connect, routes, send, sourceWorker, startServer, text } from './helpers.js';

const BODIES: Array<[name: string, body: string, markdown: string]> = [
  ['plain words', 'plain words only', 'plain words only'],
  ['a comment', '<!-- c -->', SIMPLIFY_FAILED],
  ['an empty body', '', SIMPLIFY_FAILED],
  ['whitespace', ' \n\t ', SIMPLIFY_FAILED],
  ['words and a comment', 'some words <!-- c --> and more', 'some words and more'],
  ['an XML declaration', '<?xml version="1.0"?>', SIMPLIFY_FAILED],
  ['a fragment without <html>', '<p>A fragment, no html element.</p>', 'A fragment, no html element.'],
  ['head and body without <html>', '<head><title>T</title></head><body><p>Inside the body.</p></body>', 'Inside the body.'],
];

describe.each([
  ['in-process', async () => false as const],
  ['in the worker', sourceWorker],
])('a text/html body without an <html> element, converted %s', (_where, worker) => {
  // One fetcher (and worker) per body would load the DOM libraries each time: one per describe.
  let fetcher: Fetcher | undefined;
  afterAll(async () => {
    await fetcher?.close();
  });

  it.each(BODIES)('%s: answers like the reference', async (_name, body, markdown) => {
    await using site = await startServer(routes({ '/page': send(body, 'text/html; charset=utf-8') }));
    fetcher ??= createFetcher({ allowPrivateNetwork: true, ignoreRobotsTxt: true, conversionWorker: await worker() });
    await using pair = await connect({ fetcher });
    const url = `${site.origin}/page`;
    const result = await callFetch(pair, { url });
    expect(result.isError ?? false).toBe(false);
    expect(text(result)).toBe(`Contents of ${url}:\n${markdown}`);
  });
});

describe('the fetch prompt on such bodies', () => {
  it('returns the text or the reference error as the prompt text, not a protocol error', async () => {
    await using site = await startServer(
      routes({ '/words': send('plain words only', 'text/html'), '/comment': send('<!-- c -->', 'text/html') }),
    );
    await using pair = await connect({ allowHosts: [`127.0.0.1:${site.port}`] });
    const words = await pair.client.getPrompt({ name: 'fetch', arguments: { url: `${site.origin}/words` } });
    expect(words.messages[0]?.content).toEqual({ type: 'text', text: 'plain words only' });
    const comment = await pair.client.getPrompt({ name: 'fetch', arguments: { url: `${site.origin}/comment` } });
    expect(comment.messages[0]?.content).toEqual({ type: 'text', text: SIMPLIFY_FAILED });
  });
});
