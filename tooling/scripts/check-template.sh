#!/usr/bin/env bash
# Thin wrapper so CI can call `bash tooling/scripts/check-template.sh`; the logic lives in check-template.mjs (plain Node).
exec node "$(dirname "$0")/check-template.mjs" "$@"
