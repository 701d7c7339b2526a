#!/usr/bin/env bash
# The unit and stdio tests again on Node 22 (npm's `node@22` package through npx, cached after the first run):
# the packages declare `engines.node >=20.18`, CI's own Node is 20, and users run the bins on 22 and 24 too.
# MCPKIT_TEST_CONCURRENCY: test tasks at a time (2; ci.sh runs it with 1 beside its outside checks).
# Run after a build (the stdio tests spawn the built bins, which on Node 22 turn on the compile cache).
# MCPKIT_NODE_VERSION is in the test tasks' hash (turbo.json), so Node 20's cached results are not reused here,
# while the build (the same output on either Node) is.
set -euo pipefail
cd "$(dirname "$0")/../.."
node22=$(npx -y -p node@22 -c 'command -v node' | tail -n 1)
export PATH="$(dirname "$node22"):$PATH"
version=$(node --version)
case "$version" in
  v22.*) echo "[node22] tests on Node ${version#v} ($node22)" ;;
  *) echo "[node22] expected Node 22 from npm's node@22, got $version ($node22)" >&2; exit 1 ;;
esac
export MCPKIT_NODE_VERSION="$version"
npx turbo run test test:stdio --concurrency="${MCPKIT_TEST_CONCURRENCY:-2}" --continue --output-logs=full "$@"
