#!/usr/bin/env node
// The `mcp-agent` command: runs the built CLI (dist/index.js). Committed rather than built, so that pnpm can
// link the bin before the first build.
import '../dist/index.js';
