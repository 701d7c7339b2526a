#!/usr/bin/env bash
# Thin wrapper so CI can call `bash tooling/scripts/check-images.sh`; the logic lives in check-images.mjs (plain Node).
exec node "$(dirname "$0")/check-images.mjs" "$@"
