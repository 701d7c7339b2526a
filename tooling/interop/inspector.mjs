// The official Inspector in CLI mode against a stdio bin: the tool listing's shape, `--strict` schema portability,
// and the tools/call checks in calls.mjs. Each check is [label, ok, detail].
import { run, tail } from '../scripts/lib.mjs';
import { calls } from './calls.mjs';

export const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';

/** Runs the Inspector CLI against the stdio bin (with `env` set for it); returns { exitCode, json, stderr }. */
function inspector(tool, binPath, args, env, { cwd, env: baseEnv }) {
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const res = run(tool.node, [tool.bin, '--cli', '--format', 'json', ...envArgs, process.execPath, binPath, ...args], {
    cwd,
    env: baseEnv,
    timeoutMs: 60_000,
  });
  let json;
  try {
    json = JSON.parse(res.stdout);
  } catch {}
  return { exitCode: res.status, json, stderr: res.stderr, output: res.output };
}

function toolProblems(tools) {
  const problems = [];
  if (!Array.isArray(tools) || tools.length === 0) return ['no tools listed'];
  for (const t of tools) {
    if (!(t.title || t.annotations?.title)) problems.push(`${t.name}: no title`);
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      if (typeof t.annotations?.[hint] !== 'boolean') problems.push(`${t.name}: annotations.${hint} missing`);
    }
    if (t.inputSchema?.type !== 'object') problems.push(`${t.name}: inputSchema is not an object schema`);
    if (t.outputSchema && t.outputSchema.type !== 'object') problems.push(`${t.name}: outputSchema is not an object schema`);
  }
  return problems;
}

/**
 * Every Inspector check of `serverName`'s bin: `tool` is the resolved Inspector (`resolveNode22Tool`), `settings.env`
 * the server's environment, `where` the working folder and base environment of the Inspector processes.
 */
export function inspectorChecks(tool, binPath, serverName, settings, where) {
  const checks = []; // [label, ok, detail]
  const list = inspector(tool, binPath, ['--method', 'tools/list'], settings.env, where);
  const tools = list.json?.result?.tools;
  const listProblems = list.exitCode === 0 ? toolProblems(tools) : [`exit ${list.exitCode}: ${tail(list.output, 10)}`];
  checks.push([
    `\`tools/list\`: ${Array.isArray(tools) ? tools.map((t) => `\`${t.name}\``).join(', ') : 'no tools'}, each with a title, all four annotation hints and object schemas`,
    listProblems.length === 0,
    listProblems.join('; '),
  ]);
  const strict = inspector(tool, binPath, ['--method', 'tools/list', '--strict'], settings.env, where);
  checks.push([
    '`tools/list --strict`: no error-severity tool-schema portability problem',
    strict.exitCode === 0,
    strict.exitCode === 0 ? '' : `exit ${strict.exitCode}: ${tail(strict.stderr, 15)}`,
  ]);
  for (const call of calls[serverName] ?? []) {
    const args = ['--method', 'tools/call', '--tool-name', call.tool];
    const callArgs = typeof call.args === 'function' ? call.args(settings.vars ?? {}) : call.args;
    const pairs = Object.entries(callArgs).map(([k, v]) => `${k}=${v}`);
    if (pairs.length > 0) args.push('--tool-arg', ...pairs);
    const res = inspector(tool, binPath, args, settings.env, where);
    const problem = call.expect(res.json?.result, res.exitCode);
    checks.push([call.label, problem === undefined, problem ?? '']);
  }
  return checks;
}
