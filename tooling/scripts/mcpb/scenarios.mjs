// check-mcpb's per-server scenarios: the settings of the configured run and what to check with them.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { makeRepo, startPageServer } from './fixtures.mjs';
import { callTool } from './session.mjs';

/**
 * Per server: the settings of the configured run, what to do with it (returns problems), and what to check when the
 * settings are left unset (`unset`, optional; both called as (session, tools, ctx)). `toolsDiffer`: the configured run serves other tools than the manifest's.
 */
export const SCENARIOS = {
  'server-everything': {
    toolsDiffer: true,
    config: () => ({ profile: 'legacy' }),
    async exercise(session, tools) {
      const problems = [];
      if (!tools.some((t) => t.name === 'printEnv')) problems.push('profile "legacy" did not take effect: no camelCase printEnv listed');
      const echo = tools.find((t) => t.name === 'echo');
      if (echo) {
        const r = await callTool(session, 'echo', { message: 'mcpb check' });
        if (r.isError || !r.text.includes('mcpb check')) problems.push(`echo answered ${JSON.stringify(r).slice(0, 200)}`);
      }
      return problems;
    },
    async unset(session) {
      const r = await callTool(session, 'echo', { message: 'mcpb check' });
      return r.isError || !r.text.includes('mcpb check') ? [`echo answered ${JSON.stringify(r).slice(0, 200)}`] : [];
    },
  },
  'server-fetch': {
    async setup(ctx) {
      ctx.pages = await startPageServer();
      ctx.cleanup.push(() => ctx.pages.close());
    },
    config: () => ({ user_agent: 'mcpkit-mcpb-check/1.0', ignore_robots_txt: true, allow_private_network: true }),
    async exercise(session, _tools, ctx) {
      const problems = [];
      ctx.pages.requests.length = 0;
      const r = await callTool(session, 'fetch', { url: `${ctx.pages.url}/page` });
      if (r.isError || !r.text.includes('MCPB check page'))
        problems.push(`fetch of the local page answered ${JSON.stringify(r).slice(0, 300)}`);
      const page = ctx.pages.requests.find((q) => q.url === '/page');
      if (!page) problems.push('the local page was never requested (allow_private_network did not take effect?)');
      else if (page.userAgent !== 'mcpkit-mcpb-check/1.0') problems.push(`user_agent did not take effect: sent "${page.userAgent}"`);
      if (ctx.pages.requests.some((q) => q.url === '/robots.txt'))
        problems.push('ignore_robots_txt did not take effect: robots.txt was requested');
      return problems;
    },
    // Left unset, the settings must fall back to the server's defaults, not to the placeholder text: the default agent,
    // and robots.txt respected (it disallows everything here). allow_private_network stays on to reach the local server.
    unsetConfig: { allow_private_network: true },
    async unset(session, _tools, ctx) {
      ctx.pages.requests.length = 0;
      const r = await callTool(session, 'fetch', { url: `${ctx.pages.url}/page` });
      const problems = [];
      const robots = ctx.pages.requests.find((q) => q.url === '/robots.txt');
      if (!robots) problems.push(`robots.txt was not checked (requests: ${ctx.pages.requests.map((q) => q.url).join(', ') || 'none'})`);
      else if (!/ModelContextProtocol/.test(robots.userAgent ?? ''))
        problems.push(`the default User-Agent was not used: sent "${robots.userAgent}"`);
      if (!r.isError || ctx.pages.requests.some((q) => q.url === '/page')) problems.push('a page disallowed by robots.txt was fetched');
      return problems;
    },
  },
  'server-git': {
    async setup(ctx) {
      ctx.repos = [join(ctx.dir, 'repo-a'), join(ctx.dir, 'repo-b')];
      ctx.outside = join(ctx.dir, 'repo-outside');
      for (const dir of [...ctx.repos, ctx.outside]) await makeRepo(dir);
    },
    config: (ctx) => ({ repositories: ctx.repos }),
    async exercise(session, _tools, ctx) {
      const problems = [];
      for (const repo of ctx.repos) {
        const r = await callTool(session, 'git_status', { repo_path: repo });
        if (r.isError || !/main/.test(r.text))
          problems.push(`git_status in configured ${relative(ctx.dir, repo)} answered ${JSON.stringify(r).slice(0, 300)}`);
      }
      const r = await callTool(session, 'git_status', { repo_path: ctx.outside });
      if (!r.isError) problems.push(`repositories did not take effect: git_status outside them succeeded (${r.text.slice(0, 200)})`);
      return problems;
    },
  },
  'server-memory': {
    config: (ctx) => ({ memory_file_path: join(ctx.dir, 'chosen', 'nested', 'memory.jsonl') }),
    async exercise(session, _tools, ctx) {
      const problems = [];
      const created = await callTool(session, 'create_entities', {
        entities: [{ name: 'mcpb-check', entityType: 'test', observations: ['written through the bundle'] }],
      });
      if (created.isError) problems.push(`create_entities answered ${created.text.slice(0, 300)}`);
      const graph = await callTool(session, 'read_graph', {});
      if (graph.isError || !graph.text.includes('mcpb-check')) problems.push(`read_graph answered ${graph.text.slice(0, 300)}`);
      ctx.afterExit = () => {
        const file = join(ctx.dir, 'chosen', 'nested', 'memory.jsonl');
        const written = [file, `${file}.wal`].filter(existsSync).map((f) => readFileSync(f, 'utf8'));
        return written.some((t) => t.includes('mcpb-check'))
          ? []
          : [`memory_file_path did not take effect: nothing written to ${relative(ctx.dir, file)}`];
      };
      return problems;
    },
    // Unset, the file must be the server's default one (in the test HOME), not the placeholder text.
    async unset(session, _tools, ctx) {
      const created = await callTool(session, 'create_entities', {
        entities: [{ name: 'mcpb-default', entityType: 'test', observations: ['written to the default file'] }],
      });
      if (created.isError) return [`create_entities answered ${created.text.slice(0, 300)}`];
      ctx.afterExit = () => {
        const home = join(ctx.dir, 'home');
        const data =
          process.platform === 'win32'
            ? join(home, 'AppData', 'Roaming')
            : process.platform === 'darwin'
              ? join(home, 'Library', 'Application Support')
              : join(home, '.local', 'share');
        const file = join(data, 'mcpkit-memory', 'memory.jsonl');
        const written = [file, `${file}.wal`].filter(existsSync).map((f) => readFileSync(f, 'utf8'));
        return written.some((t) => t.includes('mcpb-default')) ? [] : [`nothing written to the default file ${relative(ctx.dir, file)}`];
      };
      return [];
    },
  },
  'server-sequential-thinking': {
    config: () => ({ disable_thought_logging: true }),
    thought: { thought: 'MCPB-CHECK-THOUGHT', thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false },
    async exercise(session) {
      const r = await callTool(session, 'sequentialthinking', this.thought);
      const problems = [];
      if (r.isError) problems.push(`sequentialthinking answered ${r.text.slice(0, 300)}`);
      await new Promise((res) => setTimeout(res, 200));
      if (session.stderr().includes('MCPB-CHECK-THOUGHT'))
        problems.push('disable_thought_logging did not take effect: the thought is on stderr');
      return problems;
    },
    async unset(session) {
      const r = await callTool(session, 'sequentialthinking', this.thought);
      await new Promise((res) => setTimeout(res, 200));
      if (r.isError) return [`sequentialthinking answered ${r.text.slice(0, 300)}`];
      return session.stderr().includes('MCPB-CHECK-THOUGHT') ? [] : ['with default settings the thought is not logged on stderr'];
    },
  },
};
