// The official Inspector CLI with a pre-obtained bearer token against a server protected by OAuth, for
// tooling/scripts/interop.mjs (issue 20): a real authorization server (`oidc-provider`, started by
// tooling/test-utils/src/auth/provider.ts, `@mcpkit/test-utils/auth`, loaded in this process through tsx) on
// 127.0.0.1, the built bin on a free loopback port with `--oauth-issuer` and `--oauth-audience
// http://127.0.0.1:<port>/mcp`, a token from the authorization code flow with PKCE (a user signing in on the provider's login page, as an MCP host does for its
// user; the token's subject is that user), then the Inspector over Streamable HTTP: without the header it must stop
// with auth_required (the server's 401), with `--header "Authorization: Bearer …"` it lists the tools and calls one, in
// both protocol eras.
//
// The provider answers the bin's JWKS fetches from this process, so every child here runs through `runAsync`: a
// blocking spawn would starve the provider and the bin's token check would time out.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, runAsync, startProcess, tail } from '../scripts/lib.mjs';

/** Where tsx comes from (a workspace package that depends on it), and the provider it loads. */
const TSX_FROM = join(root, 'tooling', 'bench', 'package.json');
const PROVIDER = join(root, 'tooling', 'test-utils', 'src', 'auth', 'provider.ts');
/** The user who signs in on the provider's login page. */
const LOGIN = 'interop-user';

const text = (result) => result?.content?.find((c) => c.type === 'text')?.text ?? '';

/**
 * Per server: the scopes its tools declare, the one the token is asked for, the bin's own flags for the run
 * (`dir` is a fresh temp folder), and the tools/call the Inspector makes with that token.
 */
export const OAUTH_SERVERS = {
  '@mcpkit/server-memory': {
    scopes: ['memory:read', 'memory:write'],
    scope: 'memory:read',
    args: (dir) => ['--memory-path', join(dir, 'memory.jsonl')],
    call: {
      label: '`tools/call read_graph` with `memory:read`: the empty graph',
      tool: 'read_graph',
      args: () => ({}),
      expect(result, exitCode) {
        if (exitCode !== 0) return `exit code ${exitCode}, expected 0: ${text(result)}`;
        const graph = result?.structuredContent;
        if (!Array.isArray(graph?.entities) || graph.entities.length !== 0 || !Array.isArray(graph?.relations))
          return `expected an empty graph, got ${JSON.stringify(result)}`;
        return undefined;
      },
    },
  },
  '@mcpkit/server-fetch': {
    scopes: ['fetch:read'],
    scope: 'fetch:read',
    args: () => [],
    call: {
      label: '`tools/call fetch` of a loopback URL with `fetch:read`: the tool runs and its SSRF guard refuses (isError)',
      tool: 'fetch',
      args: ({ issuer }) => ({ url: `${issuer}/.well-known/openid-configuration` }),
      expect(result, exitCode) {
        if (exitCode === 0) return 'exit code 0, expected the Inspector to report a tool error';
        if (result?.isError !== true || !/refused to connect: .*loopback/.test(text(result)))
          return `unexpected: ${JSON.stringify(result)}`;
        return undefined;
      },
    },
  },
};

/** A TCP port free on 127.0.0.1 right now (the audience must name the port before the bin starts). */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * provider.ts's `startAuthServer`, loaded through tsx's scoped import (nothing is registered globally). tsx's ESM
 * API is found through its own `exports` map: `require.resolve` would pick the CommonJS build, whose loader
 * registration does not find its ESM half.
 */
async function loadProvider() {
  const manifestPath = createRequire(TSX_FROM).resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const api = join(dirname(manifestPath), manifest.exports['./esm/api'].import.default);
  const { tsImport } = await import(pathToFileURL(api).href);
  const { startAuthServer } = await tsImport(pathToFileURL(PROVIDER).href, import.meta.url);
  return startAuthServer;
}

/** The Inspector CLI against `endpoint` over Streamable HTTP; returns { exitCode, json, error, output }. */
async function inspectorHttp(tool, endpoint, args, { token, era = 'legacy', cwd, env }) {
  const auth = token === undefined ? [] : ['--header', `Authorization: Bearer ${token}`];
  const res = await runAsync(
    tool.node,
    [
      tool.bin,
      '--cli',
      '--format',
      'json',
      '--transport',
      'http',
      '--server-url',
      endpoint,
      '--stored-auth-only',
      '--protocol-era',
      era,
      '--connect-timeout',
      '20000',
      ...auth,
      ...args,
    ],
    { cwd, env, timeoutMs: 60_000 },
  );
  const parse = (s) => {
    try {
      return JSON.parse(s);
    } catch {
      return undefined;
    }
  };
  // The error envelope is the last JSON line on stderr.
  const error = res.stderr
    .trim()
    .split('\n')
    .reverse()
    .map(parse)
    .find((v) => v && typeof v === 'object');
  const output = token === undefined ? res.output : res.output.replaceAll(token, '<token>');
  return { exitCode: res.status, json: parse(res.stdout), error, output };
}

/**
 * Runs the OAuth checks for `serverName` (an entry of OAUTH_SERVERS) against its built bin; returns
 * { checks: [label, ok, detail][], flow } (`flow` describes the run for the results file), or undefined when the
 * server has no entry. `cwd`/`env` are the sandbox every process of the interop run gets.
 */
export async function oauthChecks(serverName, binPath, tool, { dir, cwd, env }) {
  const spec = OAUTH_SERVERS[serverName];
  if (!spec) return undefined;
  const checks = [];
  const port = await freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  const startAuthServer = await loadProvider();
  const as = await startAuthServer({ resources: { [audience]: { scopes: spec.scopes } } });
  let bin;
  try {
    const args = ['--transport', 'http', '--host', '127.0.0.1', '--port', String(port), ...spec.args(dir)];
    bin = startProcess(process.execPath, [binPath, ...args, '--oauth-issuer', as.issuer, '--oauth-audience', audience], {
      ready: (out) => /listening on http:\/\/\S+\/mcp/.test(out),
      cwd,
      env,
    });
    await bin.started;
    const endpoint = /listening on (http:\/\/\S+\/mcp)/.exec(bin.output())[1];
    if (endpoint !== audience) throw new Error(`the bin listens on ${endpoint}, expected ${audience}`);
    const token = await as.authorizationCodeToken({ resource: audience, scope: spec.scope, login: LOGIN });
    const opts = { cwd, env };

    // The Inspector's error envelope says `auth_required` (its exit 3, for a 401 or 403) but not the status, so
    // the same request is also made here, raw, for the status and the challenge a client discovers OAuth from.
    const raw = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    await raw.body?.cancel();
    const challenge = raw.headers.get('www-authenticate') ?? '';
    const bare = await inspectorHttp(tool, endpoint, ['--method', 'tools/list'], opts);
    const envelope = bare.error?.error ?? bare.error;
    checks.push([
      'without `Authorization`: the server answers `401` with `WWW-Authenticate: Bearer resource_metadata=…`, and `tools/list` stops with `auth_required` (exit 3)',
      raw.status === 401 && /^Bearer .*resource_metadata="/.test(challenge) && bare.exitCode === 3 && envelope?.code === 'auth_required',
      `raw POST: ${raw.status} ${challenge}; Inspector: exit ${bare.exitCode}: ${tail(bare.output, 10)}`,
    ]);

    for (const era of ['legacy', 'modern']) {
      const eraLabel = era === 'legacy' ? '2025-11-25' : '2026-07-28';
      const list = await inspectorHttp(tool, endpoint, ['--method', 'tools/list'], { ...opts, token, era });
      const names = (list.json?.result?.tools ?? []).map((t) => t.name);
      checks.push([
        `with the bearer token, ${eraLabel}: \`tools/list\` lists ${names.length > 0 ? names.map((n) => `\`${n}\``).join(', ') : 'no tools'}`,
        list.exitCode === 0 && names.includes(spec.call.tool),
        `exit ${list.exitCode}: ${tail(list.output, 10)}`,
      ]);
      const pairs = Object.entries(spec.call.args({ issuer: as.issuer })).map(([k, v]) => `${k}=${v}`);
      const callArgs = ['--method', 'tools/call', '--tool-name', spec.call.tool, ...(pairs.length > 0 ? ['--tool-arg', ...pairs] : [])];
      const call = await inspectorHttp(tool, endpoint, callArgs, { ...opts, token, era });
      const problem = spec.call.expect(call.json?.result, call.exitCode);
      checks.push([
        `with the bearer token, ${eraLabel}: ${spec.call.label}`,
        problem === undefined,
        problem === undefined ? '' : `${problem}; ${tail(call.output, 10)}`,
      ]);
    }
  } catch (error) {
    checks.push(['(OAuth run)', false, `${error.message}${bin ? `\n${tail(bin.output(), 20)}` : ''}`]);
  } finally {
    await bin?.stop();
    await as.close();
  }
  const flow = `\`oidc-provider\` on 127.0.0.1 as the authorization server, the bin on \`--transport http\` with \`--oauth-issuer\` and \`--oauth-audience\`, a token from the authorization code flow with PKCE (a user signing in, scope \`${spec.scope}\`), passed as \`--header "Authorization: Bearer …"\``;
  return { checks, flow };
}
