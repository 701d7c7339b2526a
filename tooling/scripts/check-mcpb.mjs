#!/usr/bin/env node
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildBundles, bundlePath, folderSize, formatSize, isFresh, manifestPath, mcpb, selectBundlesOrExit } from './build-mcpb.mjs';
import { createSteps, quietEnv, removeTemp, root } from './lib.mjs';
import { SCENARIOS } from './mcpb/scenarios.mjs';
import { listTools, startSession, stderrTail, toolDiff } from './mcpb/session.mjs';

const TAG = 'check-mcpb';
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { rebuild: { type: 'boolean' }, update: { type: 'boolean' }, keep: { type: 'boolean' } },
});
const { step, conclude } = createSteps(TAG);

const servers = selectBundlesOrExit(TAG, positionals);

// The resolver Claude Desktop uses, from the same package as the CLI.
const { getMcpConfigForManifest } = await import(
  pathToFileURL(join(root, 'node_modules', '@anthropic-ai', 'mcpb', 'dist', 'node.js')).href
);

const tmp = mkdtempSync(join(tmpdir(), 'mcpkit-check-mcpb-'));
/** Source manifests rewritten by --update in this run. */
const updated = new Set();
const RUN_TIMEOUT_MS = 60_000;

/** Static checks of an unpacked bundle's manifest. */
function inspectBundle(dir, server) {
  const problems = [];
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  if (manifest.version !== server.manifest.version)
    problems.push(`version ${manifest.version}, package.json has ${server.manifest.version}`);
  if (manifest.license !== server.manifest.license)
    problems.push(`license ${manifest.license}, package.json has ${server.manifest.license}`);
  const { server: srv, user_config: settings = {} } = manifest;
  if (srv.type !== 'node') problems.push(`server.type is ${srv.type}, not node`);
  if (!existsSync(join(dir, srv.entry_point))) problems.push(`entry_point ${srv.entry_point} is not in the bundle`);
  const cfg = srv.mcp_config;
  if (cfg.command !== 'node') problems.push(`mcp_config.command is ${cfg.command}, not node`);
  if (cfg.args?.[0] !== `\${__dirname}/${srv.entry_point}`)
    problems.push(`mcp_config.args[0] is ${cfg.args?.[0]}, not \${__dirname}/${srv.entry_point}`);
  const used = new Set();
  for (const text of [...(cfg.args ?? []), ...Object.values(cfg.env ?? {})]) {
    for (const m of text.matchAll(/\$\{user_config\.([^}]+)\}/g)) {
      used.add(m[1]);
      if (!settings[m[1]]) problems.push(`mcp_config uses \${user_config.${m[1]}}, which user_config does not declare`);
    }
  }
  for (const key of Object.keys(settings)) if (!used.has(key)) problems.push(`user_config.${key} is not used by mcp_config`);
  (cfg.args ?? []).slice(1).forEach((arg, i, rest) => {
    // The launcher expects every flag in args to take a setting's value (switches go through env).
    if (arg.startsWith('--') && !/^\$\{user_config\.[^}]+\}$/.test(rest[i + 1] ?? ''))
      problems.push(`mcp_config.args: ${arg} is not followed by a \${user_config.*} value`);
  });
  for (const [key, spec] of Object.entries(settings)) {
    if (spec.type === 'boolean' && (cfg.args ?? []).includes(`\${user_config.${key}}`))
      problems.push(`boolean user_config.${key} is passed in args; use env`);
    if (spec.multiple && Object.values(cfg.env ?? {}).some((v) => v.includes(`\${user_config.${key}}`)))
      problems.push(`user_config.${key} has multiple: true but is used in env, where Claude Desktop does not expand arrays`);
  }
  const natives = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith('.node')) natives.push(relative(dir, join(d, e.name)));
    }
  };
  walk(dir);
  if (natives.length) problems.push(`ships native binaries (built for this platform only): ${natives.slice(0, 5).join(', ')}`);
  return { manifest, problems };
}

/** Resolves mcp_config as Claude Desktop would and runs one session; returns problems. */
async function runBundle({ dir, manifest, server, userConfig, scenario, ctx, label, exercise, compareTools }) {
  const home = join(ctx.dir, 'home');
  const systemDirs = { HOME: home, DESKTOP: join(home, 'Desktop'), DOCUMENTS: join(home, 'Documents'), DOWNLOADS: join(home, 'Downloads') };
  const resolved = await getMcpConfigForManifest({ manifest, extensionPath: dir, systemDirs, userConfig, pathSeparator: sep });
  if (!resolved) return ['getMcpConfigForManifest resolved nothing (a required setting missing?)'];
  const cwd = mkdtempSync(join(ctx.dir, 'cwd-'));
  const env = {
    ...quietEnv,
    HOME: home,
    USERPROFILE: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    APPDATA: join(home, 'AppData', 'Roaming'),
    ...resolved.env,
  };
  // Claude Desktop runs `node` with its own Node.js; this one is ours.
  const command = resolved.command === 'node' ? process.execPath : resolved.command;
  const session = startSession(command, resolved.args ?? [], { env, cwd });
  const problems = [];
  const deadline = setTimeout(session.kill, RUN_TIMEOUT_MS);
  try {
    const init = await session.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'mcpkit-check-mcpb', version: '0.0.0' },
    });
    if (!init?.serverInfo?.name) problems.push(`initialize answered without serverInfo: ${JSON.stringify(init).slice(0, 300)}`);
    session.notify('notifications/initialized');
    const tools = await listTools(session);
    if (tools.length === 0) problems.push('tools/list is empty');
    if (compareTools) {
      const diff = toolDiff(manifest.tools ?? [], tools);
      if (diff.length > 0) {
        if (!values.update) {
          problems.push(`manifest tools differ from tools/list (${diff.join('; ')}): run node tooling/scripts/check-mcpb.mjs --update`);
        } else if (!updated.has(server.name)) {
          const file = manifestPath(server);
          const source = JSON.parse(readFileSync(file, 'utf8'));
          source.tools = tools;
          source.version = server.manifest.version;
          writeFileSync(file, `${JSON.stringify(source, null, 2)}\n`);
          updated.add(server.name);
          console.log(`[${TAG}]   ${relative(root, file)}: tools updated (${diff.join('; ')}); run again to check the rebuilt bundle`);
        }
      }
    } else if (!toolDiff(manifest.tools ?? [], tools).length) {
      problems.push("the settings should change the tools, yet they equal the manifest's");
    }
    if (exercise) problems.push(...(await exercise.call(scenario, session, tools, ctx)));
  } catch (error) {
    problems.push(error instanceof Error ? error.message : String(error));
  }
  const early = session.exited();
  const { code, signal } = await session.close();
  clearTimeout(deadline);
  if (early) {
    if (!problems.some((p) => p.startsWith('server exited')))
      problems.push(`server exited (${early.signal ?? early.code}) before stdin closed`);
  } else if (code !== 0)
    problems.push(`exited with ${signal ?? code} after stdin closed, expected 0; stderr: ${stderrTail(session.stderr())}`);
  problems.push(...session.problems);
  if (ctx.afterExit) {
    problems.push(...ctx.afterExit());
    ctx.afterExit = undefined;
  }
  const stray = readdirSync(cwd).filter((f) => f.includes('${'));
  if (stray.length) problems.push(`an unresolved setting became a file: ${stray.join(', ')}`);
  return problems.map((p) => `${label} run: ${p}`);
}

try {
  const stale = values.rebuild ? servers : servers.filter((s) => !isFresh(s));
  if (stale.length > 0) {
    console.log(
      `[${TAG}] building ${stale.map((s) => s.dir).join(', ')} (${values.rebuild ? '--rebuild' : 'missing or older than their inputs'})`,
    );
    await buildBundles(stale, { step, tag: TAG, keep: values.keep });
  } else console.log(`[${TAG}] dist-mcpb/ is up to date for ${servers.map((s) => s.dir).join(', ')}`);

  const sizes = [];
  for (const server of servers) {
    const file = bundlePath(server);
    const label = server.dir;
    if (!existsSync(file)) {
      await step(`${label}: bundle`, () => `${relative(root, file)} was not built`);
      continue;
    }
    const dir = join(tmp, 'unpacked', server.dir);
    const unpacked = await step(`${label}: mcpb info and unpack`, () => {
      const info = mcpb(['info', file]);
      if (info.status !== 0) return info;
      const res = mcpb(['unpack', file, dir]);
      if (res.status !== 0) return res;
      return existsSync(join(dir, 'manifest.json')) ? true : 'no manifest.json in the bundle';
    });
    if (!unpacked) continue;
    sizes.push(`${relative(root, file)} ${formatSize(statSync(file).size)} (unpacked ${formatSize(folderSize(dir))})`);
    await step(`${label}: mcpb validate (bundled manifest)`, () => mcpb(['validate', join(dir, 'manifest.json')]));
    let manifest;
    await step(`${label}: manifest matches the package and the launcher's rules`, () => {
      const inspected = inspectBundle(dir, server);
      manifest = inspected.manifest;
      return inspected.problems.length ? inspected.problems.join('; ') : true;
    });
    if (!manifest) continue;

    const scenario = SCENARIOS[server.dir];
    if (!scenario) {
      await step(`${label}: runs over stdio`, () => `no scenario in check-mcpb.mjs for ${server.dir}: add one`);
      continue;
    }
    const ctx = { dir: mkdtempSync(join(tmp, `${server.dir}-`)), cleanup: [] };
    try {
      await scenario.setup?.(ctx);
      const settings = scenario.config(ctx);
      await step(
        `${label}: starts over stdio with settings ${JSON.stringify(settings).replaceAll(ctx.dir, '<tmp>')}; tools, settings in effect`,
        async () => {
          const problems = await runBundle({
            dir,
            manifest,
            server,
            userConfig: settings,
            scenario,
            ctx,
            label: 'configured',
            exercise: scenario.exercise,
            compareTools: !scenario.toolsDiffer,
          });
          return problems.length ? problems.join('; ') : true;
        },
      );
      const required = Object.entries(manifest.user_config ?? {}).filter(([, spec]) => spec.required);
      if (required.length > 0) {
        await step(`${label}: not started while required ${required.map(([k]) => k).join(', ')} unset`, async () => {
          const home = join(ctx.dir, 'home');
          const resolved = await getMcpConfigForManifest({
            manifest,
            extensionPath: dir,
            systemDirs: { HOME: home },
            userConfig: {},
            pathSeparator: sep,
          });
          return resolved === undefined ? true : `resolved to ${JSON.stringify(resolved).slice(0, 300)}`;
        });
        continue;
      }
      // Settings left alone: missing (the placeholder stays) and empty strings (what a cleared field gives).
      const empties = Object.fromEntries(
        Object.entries(manifest.user_config ?? {})
          .filter(([, spec]) => spec.type === 'string' || spec.type === 'file' || spec.type === 'directory')
          .map(([key, spec]) => [key, spec.multiple ? [] : '']),
      );
      for (const [what, userConfig] of [
        ['unset', { ...scenario.unsetConfig }],
        ['empty', { ...empties, ...scenario.unsetConfig }],
      ]) {
        const kept = scenario.unsetConfig ? ` but ${Object.keys(scenario.unsetConfig).join(', ')}` : '';
        await step(`${label}: starts with settings ${what}${kept} (server defaults)`, async () => {
          const problems = await runBundle({
            dir,
            manifest,
            server,
            userConfig,
            scenario,
            ctx,
            label: what,
            exercise: scenario.unset,
            compareTools: true,
          });
          return problems.length ? problems.join('; ') : true;
        });
      }
    } catch (error) {
      await step(`${label}: scenario`, () => (error instanceof Error ? error.message : String(error)));
    } finally {
      for (const fn of ctx.cleanup) await fn();
    }
  }
  for (const line of sizes) console.log(`[${TAG}]   ${line}`);
} finally {
  removeTemp(TAG, tmp, values.keep);
}

conclude(`${servers.map((s) => s.dir).join(', ')}: bundles validate, unpack and run over stdio as Claude Desktop starts them`);
