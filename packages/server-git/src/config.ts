import { networkOptions, proxyOption } from '@mcpkit/net';
import { defineOptions, parse } from '@mcpkit/protocol-core';
import { DEFAULT_CACHE_BYTES } from './engine/cacheBudget.js';
import { DEFAULT_OBJECT_LIMITS } from './engine/git/objectLimits.js';

/** This server's own flags; `runCli` adds the transport flags every mcpkit bin has. Parsed once, passed down. */
export const options = defineOptions({
  repository: {
    type: 'string',
    short: 'r',
    multiple: true,
    env: 'GIT_REPOSITORIES',
    valueName: 'path',
    description:
      "A repository (or a folder of repositories) the tools may use; without one, the client's MCP roots are used, and with neither every call is refused",
    parse: parse.nonEmpty,
  },
  // Never parsed as such: `verbosityToLogLevel` turns -v/-vv/--verbose into --log-level first. Declared for
  // --help, and so that `-v` means what it means for the reference (`--version` is `-V` here, as on every bin).
  verbose: {
    type: 'boolean',
    short: 'v',
    description: "Log more to stderr: -v info, -vv debug (the reference's flags; same as --log-level info|debug)",
  },
  'allow-init': {
    type: 'boolean',
    env: 'GIT_ALLOW_INIT',
    description: 'Offer git_init, which creates repositories inside an allowed root only',
  },
  'allow-remote': {
    type: 'boolean',
    env: 'GIT_ALLOW_REMOTE',
    description: 'Offer git_fetch, git_pull and git_push (https remotes, through the network policy below)',
  },
  'no-warmup': {
    type: 'boolean',
    env: 'GIT_NO_WARMUP',
    description:
      "Do not load the engine and read the repositories ahead as soon as the client's opening is answered (the first tool call then takes longer)",
  },
  'cache-size': {
    type: 'string',
    env: 'GIT_CACHE_SIZE',
    valueName: 'size',
    default: DEFAULT_CACHE_BYTES,
    defaultLabel: '128mb',
    description:
      'The memory all caches kept between calls may take together (flattened trees, the parsed index, blobs, pack windows, delta bases, commits, patches kept for further pages); least recently used goes first',
    parse: parse.bytes,
  },
  'lock-timeout': {
    type: 'string',
    env: 'GIT_LOCK_TIMEOUT',
    valueName: 'ms',
    description:
      "How long a call that changes the index or a ref waits for another process's index.lock or ref lock before it fails and changes nothing",
    default: 2000,
    parse: parse.int({ min: 0, max: 600_000 }),
  },
  'max-object-size': {
    type: 'string',
    env: 'GIT_MAX_OBJECT_SIZE',
    valueName: 'size',
    default: DEFAULT_OBJECT_LIMITS.maxObjectSize,
    defaultLabel: '16mb',
    description:
      'The largest object (blob, tree, commit, tag, or what a delta builds) read from a repository; larger ones are refused before they are read',
    parse: parse.bytes,
  },
  'max-delta-depth': {
    type: 'string',
    env: 'GIT_MAX_DELTA_DEPTH',
    valueName: 'n',
    default: DEFAULT_OBJECT_LIMITS.maxDeltaDepth,
    description: 'The longest delta chain followed when reading a packed object (git writes at most 4095)',
    parse: parse.int({ min: 1, max: 1_000_000 }),
  },
  'max-inflate-bytes': {
    type: 'string',
    env: 'GIT_MAX_INFLATE_BYTES',
    valueName: 'size',
    default: DEFAULT_OBJECT_LIMITS.maxInflateBytes,
    defaultLabel: '1gb',
    description: 'The bytes one tool call may inflate and build from deltas in all, so a crafted repository cannot spin a call',
    parse: parse.bytes,
  },
  ...networkOptions({ allowPrivateNetwork: 'GIT_ALLOW_PRIVATE_NETWORK', allowHosts: 'GIT_ALLOW_HOSTS' }),
  ...proxyOption('GIT_PROXY_URL'),
});

/**
 * The reference's verbosity flags (`-v` info, `-vv` debug, `--verbose` counted like `-v`) become the
 * runner's `--log-level`, so `mcp-server-git -v -r .` keeps working. Other arguments pass unchanged.
 */
export function verbosityToLogLevel(argv: readonly string[]): string[] {
  let count = 0;
  const rest: string[] = [];
  for (const arg of argv) {
    if (arg === '--verbose') count += 1;
    else if (/^-v+$/.test(arg)) count += arg.length - 1;
    else rest.push(arg);
  }
  if (count === 0) return rest;
  return ['--log-level', count === 1 ? 'info' : 'debug', ...rest];
}
