#!/usr/bin/env bash
# Proves the README's test command passes on a fresh clone, as a new contributor or CI would run it:
#   1. reads the test command from the README (the line under "# 2." in its first sh block) and checks that
#      .ci/run runs exactly that command;
#   2. clones HEAD into a temp folder outside this checkout (so nothing beside the checkout, such as a
#      ../shared folder, is reachable and no untracked or ignored file comes along);
#   3. runs the command there with an empty pnpm store and an empty pnpm metadata cache, so every package
#      and every piece of registry metadata must come from the npm registry, as on a new machine.
# Inside the clone MCPKIT_FRESH_CLONE=1 is set, and ci.sh skips this step there (no recursion).
# Uncommitted changes are not in the clone: commit first. `--keep` leaves the temp folder for inspection.
set -euo pipefail
cd "$(dirname "$0")/../.."

keep=0
[ "${1:-}" = "--keep" ] && keep=1

readme_cmd=$(awk '/^# 2\./ { getline; print; exit }' README.md)
if [ -z "$readme_cmd" ]; then
  echo "[fresh-clone] FAILED: no test command under '# 2.' in README.md" >&2
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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpkit-fresh-XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "[fresh-clone] kept $tmp"; else rm -rf "$tmp"; fi; }
trap cleanup EXIT

git clone --quiet --no-local --no-hardlinks . "$tmp/mcpkit"
echo "[fresh-clone] HEAD $(git rev-parse --short HEAD) cloned to $tmp/mcpkit"
echo "[fresh-clone] running, with an empty pnpm store and metadata cache: $readme_cmd"

cd "$tmp/mcpkit"
# pnpm keeps its store in $XDG_DATA_HOME/pnpm/store and its metadata cache in $XDG_CACHE_HOME/pnpm: point both
# at empty folders (npm_config_store_dir would do too, but npm warns about every such variable). Drop any
# npm_config_* the outer pnpm run exported, so the inner run sees only what a new shell would.
while IFS= read -r var; do unset "$var"; done < <(env | awk -F= 'tolower($1) ~ /^(npm|pnpm)_config_/ { print $1 }')
export XDG_DATA_HOME="$tmp/xdg-data" XDG_CACHE_HOME="$tmp/xdg-cache" MCPKIT_FRESH_CLONE=1
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME"
started=$SECONDS
if bash -c "$readme_cmd"; then
  echo "[fresh-clone] OK: the README's test command passed on a fresh clone in $((SECONDS - started)) s"
else
  status=$?
  echo "[fresh-clone] FAILED: the README's test command exited $status on a fresh clone" >&2
  exit "$status"
fi
