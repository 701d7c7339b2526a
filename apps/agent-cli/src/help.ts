/** The `mcp-agent --help` text. */
import { AUTO_PROBE_TIMEOUT_MS, DEFAULT_CONTEXT_WINDOW_TOKENS, DEFAULT_DEFER_RATIO } from '@mcpkit/agent';
import { CLI_DEFAULTS, CLI_LIMITS } from './options.js';

/** The full `--help` text: usage, flags with defaults and environment variables, config format, examples, exit codes. */
export function helpText(): string {
  const d = CLI_DEFAULTS;
  const steps = CLI_LIMITS.maxSteps;
  return `mcp-agent: chat with an OpenAI-compatible model that can use the tools of MCP servers.

Usage:
  mcp-agent [options]                 chat in the terminal (/help inside for commands)
  mcp-agent [options] -p "<prompt>"   answer once and exit
  mcp-agent login <server> -c <file>  log in to an HTTP server that asks for OAuth
  mcp-agent logout <server> -c <file> forget (and revoke) that login
  mcp-agent servers -c <file> [--json] each server: transport, state, tools, auth
  (mcp-agent <command> --help for a command's options)

Model:
  -m, --model <name>          the model (env OPENAI_MODEL; required)
      --base-url <url>        OpenAI-compatible endpoint (env OPENAI_BASE_URL;
                              default ${d.baseUrl})
      --api-key-env <NAME>    the variable that holds the API key (default ${d.apiKeyEnv}).
                              The key itself is never a flag: command lines end up in shell
                              history and ps. Unset is fine for local servers (Ollama, LM Studio).
      --system <text>         system prompt
      --no-stream             ask for whole replies instead of streaming them

Prompt:
  -p, --prompt <text>         answer once and exit; -p - reads the prompt from stdin

Tools:
  -c, --config <file>         mcpServers JSON file (default: none, a plain chat without tools)
      --config-dir <dir>      where OAuth logins are kept, as for mcp-agent login (env
                              MCP_AGENT_CONFIG_DIR; default $XDG_CONFIG_HOME/mcp-agent or
                              ~/.config/mcp-agent)
      --tool-mode <mode>      native (function calling) or text (tools described in the prompt,
                              for models without function calling) (default ${d.toolMode})
      --max-steps <n>         tool rounds before the model must answer, ${steps.min} to ${steps.max} (default ${d.maxSteps})
      --tool-timeout <time>   per tool call: 500ms, 30s, 2m; a plain number is seconds
                              (default ${d.toolTimeoutMs / 1000}s)
      --max-result-chars <n>  longest tool result sent to the model (default ${d.maxResultChars})
      --root <dir>            a directory the servers may work in (MCP roots); repeatable
      --protocol <mode>       protocol of servers without their own "protocol" in the config:
                              legacy (2025-11-25 initialize), auto (ask server/discover first,
                              fall back to legacy; at most ${AUTO_PROBE_TIMEOUT_MS / 1000}s of waiting) or 2026-07-28
                              (that revision or nothing) (default ${d.protocol})
      --context-window <n>    the model's context window in tokens (default ${DEFAULT_CONTEXT_WINDOW_TOKENS})
      --defer-threshold <n>   when the tools' schemas take more than this many tokens
                              (estimated, 4 characters a token), offer tool_search instead
                              and load the tools it finds: a number of tokens, a share of
                              the window (15%), or off (default ${DEFAULT_DEFER_RATIO * 100}% of the window)
  -y, --yes                   allow every tool call the config does not deny, and sampling
      --ask-stdin             ask approvals and forms on stdin even when it is not a terminal
                              (for a program driving mcp-agent; answers are read line by line)
      --no-auto-approve-read-only
                              ask for tools that say they only read (readOnlyHint) too

Output:
      --json                  with -p: print the transcript (messages, tool calls) as JSON
  -q, --quiet                 no tool activity on stderr
  -h, --help                  this help
  -V, --version               the version

The reply goes to stdout; tool activity, questions and errors go to stderr.
Colour on a terminal unless NO_COLOR is set.

Approval: tools that say they only read run without asking (the server's word for it:
--no-auto-approve-read-only, or "autoApproveReadOnly": false on a server, asks for them too);
any other call is asked on the terminal ([y]es / [n]o / [a]lways for this tool). Without a
terminal to ask, such calls are denied unless --yes or the config allows them. A "deny" in
the config holds even with --yes.

Config file (the mcpServers format of Claude Desktop and others, plus "approval"):
  {
    "mcpServers": {
      "memory": {
        "command": "npx",
        "args": ["-y", "@mcpkit/server-memory"],
        "env": { "MEMORY_FILE_PATH": "/home/me/memory.jsonl" },
        "approval": {
          "default": "ask",
          "tools": { "read_graph": "allow", "delete_entities": "deny" }
        }
      },
      "remote": {
        "url": "https://example.com/mcp",
        "headers": { "Authorization": "Bearer <token>" }
      }
    }
  }
  A server is started with "command" (stdio; with "args", "env", "cwd") or reached at "url"
  (Streamable HTTP, falling back to SSE). An HTTP server that asks for OAuth needs
  "mcp-agent login <name>" once (tokens kept in ~/.config/mcp-agent/auth, mode 0600, refreshed
  by themselves); "oauth": { "clientId", "clientSecret", "scopes", "clientMetadataUrl" } sets a
  pre-registered client. A static token in "headers" (\${env:NAME}) needs no login.
  "approval" takes "allow", "deny" or "ask": as the server's "default" and per tool under
  "tools" (the server's own tool names).
  Also: "disabled": true skips a server; "timeout" is this server's per-call timeout in
  milliseconds (overrides --tool-timeout); \${env:NAME} in values is read from the environment.
  "defer": false keeps a server's tools always loaded when the others are deferred.
  "autoApproveReadOnly": false asks for a server's tools that say they only read, too.
  "protocol": "legacy" | "auto" | "2026-07-28" picks the protocol for one server (overrides
  --protocol). legacy is the default because every server speaks it today and it never waits;
  auto costs a probe (on stdio, one extra short-lived server process) and finds 2026-07-28
  servers, which ask for forms, sampling and roots inside a tool call: the same prompts appear.

Examples:
  OpenAI:
    export OPENAI_API_KEY=sk-...
    mcp-agent -m gpt-4o-mini -c servers.json
  Ollama:
    mcp-agent --base-url http://localhost:11434/v1 -m llama3.1 -c servers.json
  LM Studio:
    mcp-agent --base-url http://localhost:1234/v1 -m qwen2.5-7b-instruct -c servers.json
  A model without function calling:
    mcp-agent --base-url http://localhost:11434/v1 -m gemma2 --tool-mode text -c servers.json
  One answer, for scripts:
    mcp-agent -m gpt-4o-mini -c servers.json -p "What is in my memory graph?"
    git diff | mcp-agent -m gpt-4o-mini -p - --json > transcript.json

Exit codes:
  0    ok
  1    the run failed (model or provider error)
  2    usage or configuration error (also: the API key was refused, the model is unknown)
  130  interrupted (Ctrl-C)
`;
}
