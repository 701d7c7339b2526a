#!/usr/bin/env node
// The entry point of an mcpkit MCPB bundle: build-mcpb.mjs copies this file to server/launch.mjs with BIN filled in.
//
// Claude Desktop resolves the manifest's mcp_config (`getMcpConfigForManifest` of @anthropic-ai/mcpb) before it starts
// us, and passes settings the way the server's flags cannot take them. This adapts them, then runs the server's bin in
// this process (same stdio, no child process):
// - an optional setting the user left unset stays the literal `${user_config.key}` (or becomes ""): such a variable of
//   the manifest's mcp_config.env is removed, and such an argument is dropped with the flag before it, so the server
//   applies its own default;
// - a `multiple: true` setting is expanded into separate arguments after one flag (`--repository a b`): each value gets
//   its own flag (`--repository a --repository b`), and a flag left with no value (an empty selection) is dropped.
//   The manifests pass only flags that take a value in args (switches go through env), so this is unambiguous.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The server's bin, relative to this file. */
const BIN = '__BIN__';

const here = dirname(fileURLToPath(import.meta.url));
const unset = (value) => value === '' || /\$\{user_config\.[^}]*\}/.test(value);

let declaredEnv = [];
try {
  const manifest = JSON.parse(readFileSync(join(here, '..', 'manifest.json'), 'utf8'));
  declaredEnv = Object.keys(manifest.server?.mcp_config?.env ?? {});
} catch {}
for (const name of declaredEnv) if (process.env[name] !== undefined && unset(process.env[name])) delete process.env[name];

const given = process.argv.slice(2);
const args = [];
for (let i = 0; i < given.length; ) {
  const arg = given[i++];
  if (!arg.startsWith('--') || arg.includes('=')) {
    if (!unset(arg.slice(arg.indexOf('=') + 1))) args.push(arg);
    continue;
  }
  const values = [];
  while (i < given.length && !given[i].startsWith('--')) values.push(given[i++]);
  for (const value of values) if (!unset(value)) args.push(arg, value);
}

const bin = join(here, BIN);
process.argv = [process.argv[0], bin, ...args];
await import(pathToFileURL(bin).href);
