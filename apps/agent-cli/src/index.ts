#!/usr/bin/env node
/**
 * mcp-agent: the CLI entry. Parses the command line, loads the servers, and hands over to the
 * one-shot (`-p`) or interactive runner. Exit codes: 0 ok, 1 the run failed (model or provider),
 * 2 usage or configuration error, 130 interrupted.
 */
import { main } from './main.js';

const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
// Everything is closed by now (servers, readline); exit once stdout has taken the last bytes, so a
// stray handle in a dependency cannot keep the process alive.
process.stdout.write('', () => process.exit(code));
