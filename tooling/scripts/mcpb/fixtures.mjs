// check-mcpb's fixtures: a one-commit repository for git's bundle, a local page server for fetch's.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { quietEnv, root } from '../lib.mjs';

function git(args, cwd) {
  return spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...quietEnv,
      GIT_AUTHOR_NAME: 'mcpb check',
      GIT_AUTHOR_EMAIL: 'check@example.com',
      GIT_COMMITTER_NAME: 'mcpb check',
      GIT_COMMITTER_EMAIL: 'check@example.com',
    },
  });
}

/** A repository with one commit: the git CLI when there is one, else isomorphic-git from server-git's dependencies. */
export async function makeRepo(dir) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'README.md'), `# ${dir}\n`);
  if (git(['--version'], dir).status === 0) {
    for (const args of [
      ['init', '-q', '-b', 'main'],
      ['add', 'README.md'],
      ['commit', '-q', '-m', 'first'],
    ]) {
      const res = git(args, dir);
      if (res.status !== 0) throw new Error(`git ${args.join(' ')}: ${res.stderr}`);
    }
    return;
  }
  const entry = join(root, 'packages', 'server-git', 'node_modules', 'isomorphic-git', 'index.cjs');
  const iso = (await import(pathToFileURL(entry).href)).default;
  const fs = await import('node:fs');
  await iso.init({ fs, dir, defaultBranch: 'main' });
  await iso.add({ fs, dir, filepath: 'README.md' });
  await iso.commit({ fs, dir, message: 'first', author: { name: 'mcpb check', email: 'check@example.com' } });
}

/** A local HTTP server for fetch: a page, and a robots.txt that disallows everything. Records the requests. */
export async function startPageServer() {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ url: req.url, userAgent: req.headers['user-agent'] });
    if (req.url === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nDisallow: /\n');
    } else {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        '<!doctype html><html><head><title>mcpb check</title></head><body><main><h1>MCPB check page</h1><p>Served locally to the fetch bundle.</p></main></body></html>',
      );
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close: () => new Promise((r) => server.close(r)) };
}
