#!/usr/bin/env node
// The `mcp-server-git` command: runs the built server (dist/index.js turns on Node's compile cache, then
// loads the bundle). Committed rather than built, so that pnpm can link the bin before the first build.
import '../dist/index.js';
