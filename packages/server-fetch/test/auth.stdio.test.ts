/**
 * OAuth against the built bin over Streamable HTTP: protocol-core's auth suite (metadata, 401, a valid token
 * through the v2 client in both eras and the v1 client, 403 step-up for `fetch:read`, wrong audience, another
 * user's session), with a page on loopback that the bin is allowed to fetch.
 */
import { fileURLToPath } from 'node:url';
import { describeOAuthBin } from '@mcpkit/test-utils/auth-suite';
import { resultText } from '@mcpkit/test-utils/http-bin';
import { afterAll, expect } from 'vitest';
import { routes, send, startServer, type TestServer } from './helpers.js';

const bin = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const ARTICLE = '<html><head><title>Hi</title></head><body><article><h1>Title</h1><p>Fetched with a token.</p></article></body></html>';
let web: TestServer | undefined;
afterAll(async () => {
  await web?.close();
});

describeOAuthBin({
  bin,
  args: async () => {
    web = await startServer(routes({ '/article': send(ARTICLE, 'text/html') }));
    return ['--allow-host', `127.0.0.1:${web.port}`, '--ignore-robots-txt'];
  },
  scopes: ['fetch:read'],
  tools: ['fetch'],
  call: {
    name: 'fetch',
    arguments: () => ({ url: `${web?.origin}/article` }),
    scope: 'fetch:read',
    check: (result) => expect(resultText(result)).toBe(`Contents of ${web?.origin}/article:\n## Title\n\nFetched with a token.`),
  },
  // The prompt fetches the URL as the tool does.
  read: { method: 'prompts/get', params: { name: 'fetch', arguments: { url: 'http://127.0.0.1:1/' } }, scope: 'fetch:read' },
});
