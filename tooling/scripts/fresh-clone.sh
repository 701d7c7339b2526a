#!/usr/bin/env bash
# Proves a fresh clone installs and the README's first command works there, as for a new contributor:
#   1. reads the README's two commands (the lines under "# 1." and "# 2." in its first sh block) and checks that
#      .ci/run runs exactly the second (the test command: the run that called this script is that command);
#   2. clones HEAD into a temp folder outside this checkout (so nothing beside the checkout, such as a
#      ../shared folder, is reachable and no untracked or ignored file comes along);
#   3. runs the first command there (install --frozen-lockfile, then the tour: every server built and driven
#      over stdio) with an empty pnpm store and an empty pnpm metadata cache, so every package and every piece
#      of registry metadata must come from the npm registry, as on a new machine.
# The clone's build takes its outputs from this checkout's turbo cache (TURBO_CACHE_DIR; the same HEAD has the
# same task hashes, so nothing is rebuilt when the checkout was built and is clean): a build of a clean clone of
# HEAD with an empty cache is check-release.mjs's job (a build needing a file outside git fails there), and what
# this check adds is the install from empty pnpm caches and the tour. `MCPKIT_FRESH_CLONE_COLD_BUILD=1` builds
# with the clone's own empty cache instead; `MCPKIT_FRESH_CLONE_FULL=1` does too.
# The test command is not run a second time here: CI runs it on a fresh clone already, and every suite it holds
# ran in this checkout a moment ago. `MCPKIT_FRESH_CLONE_FULL=1` runs the test command in the clone instead
# (inside it MCPKIT_FRESH_CLONE=1 is set, and ci.sh skips the Node 22 pass and this step there).
# Uncommitted changes are not in the clone: commit first. `--keep` leaves the temp folder for inspection.
set -euo pipefail
cd "$(dirname "$0")/../.."

keep=0
[ "${1:-}" = "--keep" ] && keep=1

readme_cmd=$(awk '/^# 2\./ { getline; print; exit }' README.md)
first_cmd=$(awk '/^# 1\./ { getline; print; exit }' README.md)
if [ -z "$readme_cmd" ] || [ -z "$first_cmd" ]; then
  echo "[fresh-clone] FAILED: no command under '# 1.' or '# 2.' in README.md" >&2
  exit 1
fi
ci_cmd=$(grep -v '^\s*#' .ci/run | grep -F 'pnpm' | tail -n 1)
if [ "$ci_cmd" != "$readme_cmd" ]; then
  printf '[fresh-clone] FAILED: .ci/run runs\n  %s\nbut the README says\n  %s\n' "$ci_cmd" "$readme_cmd" >&2
  exit 1
fi
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "[fresh-clone] note: uncommitted changes are not part of the clone; it checks HEAD $(git rev-parse --short HEAD)"
fi

# turbo's cache of this checkout: <root>/.turbo/cache, for a git worktree the main worktree's (turbo shares it).
checkout_cache="$(cd "$(git rev-parse --git-common-dir)/.." && pwd)/.turbo/cache"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpkit-fresh-XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "[fresh-clone] kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

git clone --quiet --no-local --no-hardlinks . "$tmp/mcpkit"
echo "[fresh-clone] HEAD $(git rev-parse --short HEAD) cloned to $tmp/mcpkit"
run_cmd=$first_cmd
[ "${MCPKIT_FRESH_CLONE_FULL:-}" = 1 ] && run_cmd=$readme_cmd
echo "[fresh-clone] running, with an empty pnpm store and metadata cache: $run_cmd"

cd "$tmp/mcpkit"
# pnpm keeps its store in $XDG_DATA_HOME/pnpm/store and its metadata cache in $XDG_CACHE_HOME/pnpm: point both
# at empty folders (npm_config_store_dir would do too, but npm warns about every such variable). Drop any
# npm_config_* the outer pnpm run exported, so the inner run sees only what a new shell would.
while IFS= read -r var; do unset "$var"; done < <(env | awk -F= 'tolower($1) ~ /^(npm|pnpm)_config_/ { print $1 }')
export XDG_DATA_HOME="$tmp/xdg-data" XDG_CACHE_HOME="$tmp/xdg-cache" MCPKIT_FRESH_CLONE=1
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
if [ "${MCPKIT_FRESH_CLONE_FULL:-}" != 1 ] && [ "${MCPKIT_FRESH_CLONE_COLD_BUILD:-}" != 1 ] && [ -d "$checkout_cache" ]; then
  export TURBO_CACHE_DIR="${TURBO_CACHE_DIR:-$checkout_cache}"
  echo "[fresh-clone] turbo cache: the checkout's ($TURBO_CACHE_DIR)"
else
  echo "[fresh-clone] turbo cache: the clone's own, empty"
fi
started=$SECONDS
if bash -c "$run_cmd" </dev/null; then
  echo "[fresh-clone] OK: '$run_cmd' passed on a fresh clone in $((SECONDS - started)) s"
else
  status=$?
  echo "[fresh-clone] FAILED: '$run_cmd' exited $status on a fresh clone" >&2
  exit "$status"
fi
