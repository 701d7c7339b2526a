#!/usr/bin/env bash
# Thin wrapper so CI can call `bash tooling/scripts/interop.sh`; the logic lives in interop.mjs (plain Node).
exec node "$(dirname "$0")/interop.mjs" "$@"
