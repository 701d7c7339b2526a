#!/usr/bin/env bash
# The whole CI job: lint (Biome, knip, and check-imports.mjs: no package reaching into another's src/ or test/), the
# lockfile's platforms, README sections, typecheck, build, the MCP Registry manifests, unit + stdio tests (once on
# Node 20, once on npm's node@22), the packed-tarball npx check, the Claude Desktop bundles, the template check,
# interop with the official conformance suite and Inspector, and last a fresh-clone install check: the README's
# first command on a clone of HEAD with empty pnpm caches (skipped inside that clone, and when
# MCPKIT_SKIP_FRESH_CLONE=1). Each step prints its duration; the run ends on one
# `tests: N passed, N failed` line whether it passed or not.
# Run through pnpm (`npx -y pnpm@10.34.8 run ci`) so that pnpm is on PATH for turbo and the scripts.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 FORCE_COLOR=0 NO_COLOR=1
# turbo.json's globalEnv: the Node version is part of every task's hash, so a cached Node 20 result is never
# taken for Node 22 (test-node22.sh sets its own).
export MCPKIT_NODE_VERSION="$(node --version)"

log=$(mktemp)
started=$SECONDS
last_step=""
step_started=$SECONDS
step() {
  [ -n "$last_step" ] && printf '== done in %s s: %s\n' "$((SECONDS - step_started))" "$last_step"
  last_step="$*"
  step_started=$SECONDS
  printf '\n== %s\n' "$*"
}
# One closing line with the number of vitest tests run by turbo, on success and on failure alike.
# (awk alone: a grep that matches nothing would end the script under pipefail)
count() { awk -v what="$1" '/Tests +[0-9]/ && match($0, "[0-9]+ " what) { s += substr($0, RSTART, RLENGTH) + 0 } END { print s + 0 }' "$log"; }
finish() {
  status=$?
  [ -n "$last_step" ] && printf '== %s in %s s: %s\n' "$([ "$status" = 0 ] && echo done || echo FAILED)" "$((SECONDS - step_started))" "$last_step"
  printf '\nci: %s s in all, exit %s\n' "$((SECONDS - started))" "$status"
  passed=$(count passed)
  failed=$(count failed)
  # A step that failed outside vitest still counts as a failure on the closing line.
  if [ "$status" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
  printf '\ntests: %s passed, %s failed\n' "$passed" "$failed"
  rm -f "$log"
  exit "$status"
}
trap finish EXIT

step "lint (biome; knip: unused files, exports and dependencies; no package reaching into another's src/ or test/)"
npx biome ci .
npx knip --no-progress
node tooling/scripts/check-imports.mjs

step "lockfile complete for every platform (turbo, Biome, esbuild, Rollup binaries for macOS and Windows too)"
node tooling/scripts/check-lockfile.mjs

step "README sections (every server and the template: the same headings in the same order)"
node tooling/scripts/check-readmes.mjs

step "typecheck and build (turbo)"
npx turbo run typecheck build --output-logs=full

step "MCP Registry manifests (server.json: registry schema, package.json, each bin's --help)"
node tooling/scripts/check-registry.mjs

# Two test tasks at a time: each vitest already uses every core, and several timing tests (fetch's
# conversion deadline, git's comparisons with the CLI) misfire on an oversubscribed 2-core runner.
step "unit and stdio tests (turbo, two packages at a time)"
npx turbo run test test:stdio --concurrency=2 --continue --output-logs=full 2>&1 | tee -a "$log"

if [ "${MCPKIT_FRESH_CLONE:-}" = 1 ]; then
  step "unit and stdio tests on Node 22: skipped in the fresh clone (the checkout's run did them)"
else
  step "unit and stdio tests on Node 22 (npm's node@22)"
  bash tooling/scripts/test-node22.sh 2>&1 | tee -a "$log"
fi

# The checks after the tests build, pack, install and drive the servers from the outside; most of their time is
# spent waiting on npm, podman and child processes, so they run two at a time. Each one's output is kept in its
# own log and printed whole when it ends, with its duration; the group fails if any of them failed.
jobs_dir=$(mktemp -d)
job_names=()
job_cmds=()
job() { job_names+=("$1"); job_cmds+=("$2"); }

job "published tarballs start through npx (offline from the workspace)" "bash tooling/scripts/check-pack.sh"
job "OCI images (podman): built from the tarballs, driven over stdio and HTTP" "bash tooling/scripts/check-images.sh"
job "Claude Desktop bundles (.mcpb): built, validated with the official mcpb CLI, started over stdio" "bash tooling/scripts/check-mcpb.sh"
job "scaffolded server builds and passes its tests" "bash tooling/scripts/check-template.sh"
job "interop: official conformance suite and Inspector CLI" "bash tooling/scripts/interop.sh"
job "interop: the agent as a client (conformance 0.2.0-alpha.12 client scenarios, 2026-07-28)" "node tooling/scripts/interop-client.mjs"
job "load balancer: every server through HAProxy in front of 3 replicas, both protocol versions" "node tooling/balancer/check-balancer.mjs"
if [ "${MCPKIT_FRESH_CLONE:-}" != 1 ]; then
  job "first release: version-packages, publish to a loopback registry (verdaccio), npx -y every server from it" "node tooling/scripts/check-release.mjs"
fi
if [ "${MCPKIT_FRESH_CLONE:-}" = 1 ] || [ "${MCPKIT_SKIP_FRESH_CLONE:-}" = 1 ]; then
  printf '\n== fresh clone: skipped (%s)\n' "$([ "${MCPKIT_FRESH_CLONE:-}" = 1 ] && echo 'this run is the fresh clone' || echo 'MCPKIT_SKIP_FRESH_CLONE=1')"
else
  job "fresh clone: install and the README's first command on a clone of HEAD outside the checkout, empty pnpm caches" "bash tooling/scripts/fresh-clone.sh"
fi

step "packaging, images, bundles, template, interop, load balancer, release and fresh-clone checks (two at a time)"
group_failed=()
run_job() {
  local n=$1 started=$SECONDS status=0
  bash -c "${job_cmds[$n]}" >"$jobs_dir/$n.log" 2>&1 </dev/null || status=$?
  echo "$status $((SECONDS - started))" >"$jobs_dir/$n.status"
}
running=0
for n in "${!job_cmds[@]}"; do
  if [ "$running" -ge 2 ]; then
    wait -n || true
    running=$((running - 1))
  fi
  run_job "$n" &
  running=$((running + 1))
done
wait || true
for n in "${!job_cmds[@]}"; do
  read -r status secs <"$jobs_dir/$n.status" || { status=1; secs=0; }
  printf '\n== %s\n' "${job_names[$n]}"
  cat "$jobs_dir/$n.log"
  if [ "$status" = 0 ]; then
    printf '== done in %s s: %s\n' "$secs" "${job_names[$n]}"
  else
    printf '== FAILED (exit %s) in %s s: %s\n' "$status" "$secs" "${job_names[$n]}"
    group_failed+=("${job_names[$n]}")
  fi
done
rm -rf "$jobs_dir"
if [ "${#group_failed[@]}" -gt 0 ]; then
  printf '\n%s check(s) failed:\n' "${#group_failed[@]}"
  printf '  - %s\n' "${group_failed[@]}"
  exit 1
fi
