#!/usr/bin/env bash
# Thin wrapper so CI can call `bash tooling/scripts/check-mcpb.sh`; the logic lives in check-mcpb.mjs (plain Node).
exec node "$(dirname "$0")/check-mcpb.mjs" "$@"
