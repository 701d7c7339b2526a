#!/usr/bin/env bash
# Thin wrapper so CI can call `bash tooling/scripts/check-pack.sh`; the logic lives in check-pack.mjs (plain Node).
exec node "$(dirname "$0")/check-pack.mjs" "$@"
