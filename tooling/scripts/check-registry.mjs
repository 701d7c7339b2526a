#!/usr/bin/env node
// Checks the MCP Registry manifests: every packages/server-*/server.json, and the template's
// (tooling/templates/server/server.json, with its placeholders filled in as `pnpm new:server` does).
//
//   node tooling/scripts/check-registry.mjs        (pnpm check:registry)
//
// 1. each file validates against the registry's JSON Schema, vendored in tooling/registry/ (draft-07, so
//    Ajv's default build), and names that schema in `$schema`;
// 2. it agrees with its package.json: `name` is `mcpName`, `version` and `packages[0].version` are the package
//    version (`pnpm version-packages` keeps them in sync), one npm package whose `identifier` is the package
//    name, `runtimeHint` npx, transport stdio, `repository` the package's repository and directory;
// 3. every environment variable and argument has a description, a default that its format and choices allow,
//    and secret-looking variables are marked `isSecret`; named arguments pass the registry's own name checks;
// 4. every environment variable the server declares is listed, and nothing is listed that the server does not
//    read. What the server declares comes from the built bin's `--help` (when dist/index.js exists, so the
//    options that helpers such as @mcpkit/net add are included) and from the string literals in src/config.ts
//    (always, so the check also works before a build); the shared runner's transport options (MCP_*, PORT,
//    LOG_LEVEL) are not required.
// Prints one line per problem and exits 1 if there was any.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { DOCKERFILE, dockerfileStages, IMAGE_REPOSITORY } from './images.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const schemaPath = join(root, 'tooling', 'registry', 'server.schema.json');
const templateDir = join(root, 'tooling', 'templates', 'server');
const NPM_REGISTRY = 'https://registry.npmjs.org';
/** Where the images are published (tooling/scripts/images.mjs). */
const OCI_REPOSITORY = IMAGE_REPOSITORY;
const ENV_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
const SECRET_NAME = /(?:^|_)(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY)$/;

const problems = [];
const rel = (path) => relative(root, path).split('\\').join('/');
const problem = (file, message) => problems.push(`${rel(file)}: ${message}`);
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

/**
 * The servers that have an image: the stages of tooling/images/Dockerfile (none in a copy without it, such as
 * check-template's: a server.json with an OCI entry then fails the count below).
 */
const imageStages = existsSync(DOCKERFILE) ? dockerfileStages() : [];

// --- the schema -------------------------------------------------------------------------------------------
const schema = readJson(schemaPath);
// Not Ajv's strict mode: the schema is generated from the registry's OpenAPI file, keeps its `example`
// annotations and lists `required` properties inside `anyOf` branches, all valid draft-07 that strict mode
// refuses. Formats (uri) are checked, as the registry's validator does.
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(schema);

// --- what the shared runner declares (not required in server.json) ----------------------------------------
const runnerFile = join(root, 'packages', 'protocol-core', 'src', 'runner', 'runnerOptions.ts');
const RUNNER_ENV = runnerEnv(runnerFile);
if (RUNNER_ENV.size === 0)
  problems.push('packages/protocol-core/src/runner/runnerOptions.ts: found no runner options (did runnerOptions move?)');

const netOptions = join(root, 'packages', 'net', 'src', 'options.ts');
const NET_FLAGS = existsSync(netOptions)
  ? [...readFileSync(netOptions, 'utf8').matchAll(/^\s+'?([a-z][a-z0-9-]*)'?: \{$/gm)].map((m) => `--${m[1]}`)
  : [];

/** Upper-case string literals that look like environment variable names. */
function envLiterals(source) {
  return [...source.matchAll(/['"`]([A-Z][A-Z0-9_]*)['"`]/g)].map((m) => m[1]).filter((n) => ENV_NAME.test(n) || n === 'PORT');
}

/**
 * The environment variables of the runner's options (`runnerOptions` in runner/runnerOptions.ts), including those of the
 * option sets spread into it (`...authOptions`: read from the file it is imported from, with the variables that
 * file reads from the environment directly, such as MCP_OAUTH_CLIENT_SECRET).
 */
function runnerEnv(file) {
  const source = readFileSync(file, 'utf8');
  const block = source.slice(source.indexOf('export const runnerOptions'));
  const body = block.slice(0, block.indexOf('\n});'));
  const names = new Set(envLiterals(body));
  for (const [, spread] of body.matchAll(/^\s+\.\.\.(\w+),$/gm)) {
    const from = new RegExp(`^import \\{[^}]*\\b${spread}\\b[^}]*\\} from '(\\.[^']+)\\.js';$`, 'm').exec(source)?.[1];
    if (!from) {
      problems.push(`${rel(file)}: runnerOptions spreads ${spread}, whose module this check cannot find`);
      continue;
    }
    const spreadSource = readFileSync(join(dirname(file), `${from}.ts`), 'utf8');
    for (const name of envLiterals(spreadSource)) names.add(name);
    for (const [, name] of spreadSource.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) names.add(name);
  }
  return names;
}

/** Flag names declared as keys of the options object in a config.ts (`'max-bytes': {`, `timeout: {`). */
function flagKeys(source) {
  return [...source.matchAll(/^ {2}'?([a-z][a-z0-9-]*)'?: \{/gm)].map((m) => m[1]);
}

/** The built bin's --help, parsed into options: `{ flag, short, env: [] }`. Undefined when not built. */
function helpOptions(pkgDir, serverEnv) {
  const bin = join(pkgDir, 'dist', 'index.js');
  if (!existsSync(bin)) return undefined;
  // Without the server's variables: a stray PORT or FETCH_TIMEOUT in ours must not turn --help into a configuration error.
  const env = { ...process.env, NO_COLOR: '1' };
  for (const name of [...RUNNER_ENV, ...serverEnv]) delete env[name];
  const res = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8', timeout: 30_000, env, cwd: pkgDir });
  if (res.status !== 0) {
    problem(bin, `--help exited ${res.status ?? res.signal}: ${(res.stderr || res.stdout).trim().split('\n')[0]}`);
    return undefined;
  }
  const options = [];
  let current;
  for (const line of res.stdout.split('\n')) {
    const m = /^ {2}(?:-([A-Za-z]), | {4})--([a-z0-9-]+)/.exec(line);
    if (m) {
      current = { flag: `--${m[2]}`, short: m[1] ? `-${m[1]}` : undefined, text: line };
      options.push(current);
    } else if (current && /^ {6,}\S/.test(line)) current.text += ` ${line.trim()}`;
    else current = undefined;
  }
  return options.map(({ flag, short, text }) => {
    const env = /[(;] ?env ([A-Z0-9_, ]+?)[;)]/.exec(text);
    return { flag, short, env: env ? env[1].split(/,\s*/) : [] };
  });
}

/** Every source text of a package (src/**), to accept variables read outside config.ts (GIT_TOKEN). */
function sourceText(dir) {
  if (!existsSync(dir)) return '';
  return readdirSync(dir)
    .map((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) return sourceText(path);
      return /\.(ts|mts|js|mjs)$/.test(entry) ? readFileSync(path, 'utf8') : '';
    })
    .join('\n');
}

// --- one server.json ---------------------------------------------------------------------------------------
/**
 * @param {object} target
 * @param {string} target.file      server.json path (for messages)
 * @param {unknown} target.doc      its parsed contents
 * @param {object} target.pkg       the package.json it must agree with
 * @param {string} target.pkgDir    the package folder
 * @param {string} target.dirName   the package folder relative to the repository root (packages/server-x)
 * @param {string} target.configSource  src/config.ts text
 * @param {string} target.allSource     src/** text
 * @param {boolean} target.built    whether --help may be used
 */
function check({ file, doc, pkg, pkgDir, dirName, configSource, allSource, built }) {
  if (!validate(doc)) {
    for (const error of validate.errors ?? []) {
      const where = error.instancePath || '/';
      const extra = error.params?.allowedValues ? ` (${error.params.allowedValues.join(', ')})` : '';
      problem(file, `schema: ${where} ${error.message}${extra}`);
    }
    return;
  }
  if (doc.$schema !== schema.$id) problem(file, `$schema is ${doc.$schema ?? 'missing'}; expected ${schema.$id} (the vendored schema)`);
  if (doc.name !== pkg.mcpName) problem(file, `name "${doc.name}" is not package.json's mcpName "${pkg.mcpName}"`);
  if (doc.version !== pkg.version)
    problem(file, `version ${doc.version} is not package.json's ${pkg.version} (run node tooling/scripts/sync-server-json.mjs)`);
  const repoUrl = String(pkg.repository?.url ?? '')
    .replace(/^git\+/, '')
    .replace(/\.git$/, '');
  if (doc.repository?.url !== repoUrl) problem(file, `repository.url ${doc.repository?.url} is not package.json's ${repoUrl}`);
  if (doc.repository?.source !== 'github') problem(file, `repository.source is ${doc.repository?.source}; expected github`);
  if (doc.repository?.subfolder !== dirName || pkg.repository?.directory !== dirName)
    problem(
      file,
      `repository.subfolder ${doc.repository?.subfolder} and package.json repository.directory ${pkg.repository?.directory} must both be ${dirName}`,
    );
  if (doc.websiteUrl !== undefined && !doc.websiteUrl.startsWith('https://'))
    problem(file, `websiteUrl must be https (the registry refuses others)`);

  const packages = doc.packages ?? [];
  // The npm package first; then the OCI image where tooling/images/Dockerfile has a stage for the server.
  const hasImage = imageStages.includes(dirName.replace(/^packages\/server-/, ''));
  const expected = hasImage ? 2 : 1;
  if (packages.length !== expected) {
    problem(
      file,
      `expected ${expected} entries in packages (the npm package${hasImage ? ', then the OCI image' : ''}), found ${packages.length}`,
    );
    if (packages.length === 0) return;
  }
  const [npm, oci] = packages;
  if (hasImage && oci) checkOci(file, oci, pkg, npm);
  if (npm.registryType !== 'npm') problem(file, `packages[0].registryType is ${npm.registryType}; expected npm`);
  if (npm.registryBaseUrl !== undefined && npm.registryBaseUrl !== NPM_REGISTRY)
    problem(file, `packages[0].registryBaseUrl must be ${NPM_REGISTRY} (the only npm registry the official registry accepts)`);
  if (npm.identifier !== pkg.name) problem(file, `packages[0].identifier "${npm.identifier}" is not the package name "${pkg.name}"`);
  if (npm.version !== pkg.version)
    problem(
      file,
      `packages[0].version ${npm.version} is not package.json's ${pkg.version} (run node tooling/scripts/sync-server-json.mjs)`,
    );
  if (npm.runtimeHint !== 'npx') problem(file, `packages[0].runtimeHint is ${npm.runtimeHint}; expected npx`);
  if (npm.transport?.type !== 'stdio') problem(file, `packages[0].transport.type is ${npm.transport?.type}; expected stdio`);

  const envs = npm.environmentVariables ?? [];
  const args = [...(npm.packageArguments ?? []), ...(npm.runtimeArguments ?? [])];
  const seen = new Set();
  for (const [i, input] of envs.entries()) {
    const where = `environmentVariables[${i}] ${input.name}`;
    if (seen.has(input.name)) problem(file, `${where}: listed twice`);
    seen.add(input.name);
    checkInput(file, where, input);
    if (SECRET_NAME.test(input.name) && input.isSecret !== true) problem(file, `${where}: looks like a secret; mark it "isSecret": true`);
  }
  for (const [i, arg] of args.entries()) {
    const where = `packageArguments[${i}] ${arg.name ?? arg.valueHint ?? ''}`.trimEnd();
    checkInput(file, where, arg);
    if (arg.type === 'named') {
      // The registry's own checks (internal/validators): no embedded value or placeholder in the name.
      if (/[<>$ ]/.test(arg.name)) problem(file, `${where}: a named argument's name must be the bare flag (no spaces, <, >, $)`);
      if (arg.value?.startsWith(arg.name) || arg.default?.startsWith(arg.name))
        problem(file, `${where}: value and default must not repeat the flag name`);
    }
  }

  // What the server declares.
  const declaredEnv = new Set(envLiterals(configSource).filter((n) => !RUNNER_ENV.has(n)));
  const help = built ? helpOptions(pkgDir, declaredEnv) : undefined;
  const declaredFlags = new Set(flagKeys(configSource).map((k) => `--${k}`));
  for (const option of help ?? []) {
    declaredFlags.add(option.flag);
    if (option.short) declaredFlags.add(option.short);
    for (const name of option.env) if (!RUNNER_ENV.has(name)) declaredEnv.add(name);
  }
  if (declaredEnv.size === 0 && /\benv\b/.test(configSource))
    problem(file, 'found no environment variables in src/config.ts; the check needs updating');
  for (const name of declaredEnv) {
    if (!seen.has(name)) problem(file, `environment variable ${name} (declared by the server) is missing from environmentVariables`);
  }
  for (const name of seen) {
    if (declaredEnv.has(name) || RUNNER_ENV.has(name)) continue;
    if (!new RegExp(`['"\`]${name}['"\`]`).test(allSource))
      problem(file, `environment variable ${name} is listed but the server never reads it (not in src/)`);
  }
  // Without --help, the flags @mcpkit/net's helpers add (networkOptions, proxyOption) come from its source.
  if (!help && /@mcpkit\/net/.test(configSource)) for (const flag of NET_FLAGS) declaredFlags.add(flag);
  for (const arg of [...args, ...(hasImage ? (oci?.packageArguments ?? []) : [])]) {
    if (arg.type === 'named' && !declaredFlags.has(arg.name)) problem(file, `argument ${arg.name} is not a flag the server declares`);
  }
  return { envs: envs.length, args: args.length, source: help ? '--help and src/config.ts' : 'src/config.ts (not built)' };
}

/**
 * The OCI entry: the image `docker.io/mcpkit/server-<name>:<version>` (the registry's format: the tag in the
 * identifier, no `version` field), run with docker over stdio; its inputs checked like the npm entry's, its
 * variables among the npm entry's (the same server reads them).
 */
function checkOci(file, oci, pkg, npm) {
  const where = 'packages[1]';
  if (oci.registryType !== 'oci') problem(file, `${where}.registryType is ${oci.registryType}; expected oci (the image)`);
  const image = `${OCI_REPOSITORY}/${pkg.name.replace(/^@[^/]+\//, '')}:${pkg.version}`;
  if (oci.identifier !== image)
    problem(file, `${where}.identifier is ${oci.identifier}; expected ${image} (run node tooling/scripts/sync-server-json.mjs)`);
  if (oci.version !== undefined) problem(file, `${where}.version: an image's version is the tag in its identifier`);
  if (oci.registryBaseUrl !== undefined) problem(file, `${where}.registryBaseUrl: an image's registry is in its identifier`);
  if (oci.runtimeHint !== 'docker') problem(file, `${where}.runtimeHint is ${oci.runtimeHint}; expected docker`);
  if (oci.transport?.type !== 'stdio') problem(file, `${where}.transport.type is ${oci.transport?.type}; expected stdio`);
  const npmEnv = new Set((npm?.environmentVariables ?? []).map((e) => e.name));
  for (const [i, input] of (oci.environmentVariables ?? []).entries()) {
    checkInput(file, `${where}.environmentVariables[${i}] ${input.name}`, input);
    if (!npmEnv.has(input.name)) problem(file, `${where}.environmentVariables[${i}] ${input.name} is not one the npm entry lists`);
  }
  for (const [i, arg] of [...(oci.runtimeArguments ?? []), ...(oci.packageArguments ?? [])].entries()) {
    checkInput(file, `${where} argument ${i} ${arg.name ?? arg.valueHint ?? ''}`.trimEnd(), arg);
    if (arg.type === 'named' && /[<>$ ]/.test(arg.name))
      problem(file, `${where} argument ${arg.name}: a named argument's name must be the bare flag`);
  }
}

/** One environment variable or argument: description, format, default and choices that agree. */
function checkInput(file, where, input) {
  if (typeof input.description !== 'string' || input.description.trim() === '') problem(file, `${where}: needs a description`);
  const format = input.format ?? 'string';
  for (const [field, value] of [
    ['default', input.default],
    ['value', input.value],
  ]) {
    if (value === undefined) continue;
    if (format === 'boolean' && value !== 'true' && value !== 'false')
      problem(file, `${where}: ${field} "${value}" is not "true" or "false"`);
    if (format === 'number' && !/^-?\d+(\.\d+)?$/.test(value)) problem(file, `${where}: ${field} "${value}" is not a decimal number`);
    if (input.choices && !input.choices.includes(value)) problem(file, `${where}: ${field} "${value}" is not one of its choices`);
  }
  if (input.isRequired === true && input.default !== undefined)
    problem(file, `${where}: a required input with a default is never required`);
}

// --- the targets -------------------------------------------------------------------------------------------
const results = [];
const packagesDir = join(root, 'packages');
for (const entry of readdirSync(packagesDir).sort()) {
  const pkgDir = join(packagesDir, entry);
  const manifest = join(pkgDir, 'package.json');
  if (!existsSync(manifest)) continue;
  const pkg = readJson(manifest);
  const file = join(pkgDir, 'server.json');
  const isServer = entry.startsWith('server-') || pkg.mcpName !== undefined;
  if (!isServer) continue;
  if (pkg.private) continue;
  if (!existsSync(file)) {
    problem(file, `missing: every published server needs one (copy tooling/templates/server/server.json)`);
    continue;
  }
  if (pkg.mcpName === undefined) problem(manifest, 'has no mcpName (the registry checks it against server.json)');
  let doc;
  try {
    doc = readJson(file);
  } catch (error) {
    problem(file, `not JSON: ${error.message}`);
    continue;
  }
  const configPath = join(pkgDir, 'src', 'config.ts');
  const configSource = existsSync(configPath) ? readFileSync(configPath, 'utf8') : '';
  if (!configSource) problem(configPath, 'missing: cannot tell which environment variables the server reads');
  const before = problems.length;
  const result = check({
    file,
    doc,
    pkg,
    pkgDir,
    dirName: `packages/${entry}`,
    configSource,
    allSource: sourceText(join(pkgDir, 'src')),
    built: true,
  });
  if (result && problems.length === before)
    results.push(`${rel(file)} ${doc.version}: ${result.envs} variables, ${result.args} arguments (declared: ${result.source})`);
}

// The template, as `pnpm new:server template-probe` fills it in (placeholders JSON-escaped in .json, as there).
{
  const tokens = {
    $NAME$: 'template-probe',
    $PASCAL$: 'TemplateProbe',
    $TITLE$: 'Template Probe',
    $ENV$: 'TEMPLATE_PROBE',
    $DESCRIPTION$: 'Template Probe MCP server.',
  };
  const fill = (text, json) => {
    let out = text;
    for (const [token, value] of Object.entries(tokens)) out = out.split(token).join(json ? JSON.stringify(value).slice(1, -1) : value);
    return out;
  };
  const file = join(templateDir, 'server.json');
  if (!existsSync(file)) problem(file, 'missing: pnpm new:server would scaffold a server without a registry manifest');
  else {
    const doc = JSON.parse(fill(readFileSync(file, 'utf8'), true));
    const pkg = JSON.parse(fill(readFileSync(join(templateDir, 'package.json'), 'utf8'), true));
    const configSource = fill(readFileSync(join(templateDir, 'src', 'config.ts'), 'utf8'), false);
    const before = problems.length;
    const leftover = JSON.stringify(doc).match(/\$[A-Z]+\$/);
    if (leftover) problem(file, `unknown placeholder ${leftover[0]} (new-server.mjs does not fill it in)`);
    const result = check({
      file,
      doc,
      pkg,
      pkgDir: templateDir,
      dirName: `packages/server-${tokens.$NAME$}`,
      configSource,
      allSource: fill(sourceText(join(templateDir, 'src')), false),
      built: false,
    });
    if (result && problems.length === before)
      results.push(`${rel(file)} (placeholders filled in): ${result.envs} variables, ${result.args} arguments`);
  }
}

for (const line of results) console.log(`registry: ok ${line}`);
if (problems.length > 0) {
  for (const line of problems) console.error(`registry: ${line}`);
  console.error(`registry: ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  process.exit(1);
}
console.log(`registry: ${results.length} server.json files match the MCP Registry schema (${schema.$id}) and their packages`);
