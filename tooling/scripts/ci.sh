#!/usr/bin/env bash
# The whole CI job: lint (Biome, knip, and check-imports.mjs: no package reaching into another's src/ or test/), the
# lockfile's platforms, README sections, typecheck, build, the MCP Registry manifests, unit + stdio tests (once on
# Node 20, once on npm's node@22), the packed-tarball npx check, the OCI images, the Claude Desktop bundles, the
# template check, interop with the official conformance suite and Inspector, the load balancer, the first release
# on a loopback registry, and a fresh-clone install check: the README's first command on a clone of HEAD with empty
# pnpm caches (skipped inside that clone, and when MCPKIT_SKIP_FRESH_CLONE=1). Each step prints its duration, the
# run ends on a `step <name>: <seconds>s` table and one `tests: N passed, N failed` line whether it passed or not.
#
# What runs at the same time (2 cores; never more than two heavy things at once):
#   1. the source checks (Biome, knip, check-imports, lockfile, READMEs) beside typecheck + build: they read
#      sources, lockfile and READMEs only, never dist/;
#   2. the Node 20 tests, alone (two packages at a time);
#   3. the checks on the built packages, two at a time: the Node 22 tests (one package at a time, so one vitest)
#      are one of the two, the outside checks take the other slot and both once the Node 22 pass is over.
#      MCPKIT_CI_NODE22_ALONE=1 runs the Node 22 pass as its own step before them instead (two packages at a time).
# Run through pnpm (`npx -y pnpm@10.34.8 run ci`) so that pnpm is on PATH for turbo and the scripts.
set -euo pipefail
cd "$(dirname "$0")/../.."
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1 FORCE_COLOR=0 NO_COLOR=1
# turbo.json's test tasks list MCPKIT_NODE_VERSION in their env: the Node version is part of their hash, so a
# cached Node 20 result is never taken for Node 22 (test-node22.sh sets its own); builds are shared.
export MCPKIT_NODE_VERSION="$(node --version)"

log=$(mktemp)
work=$(mktemp -d)
timings="$work/timings"
: >"$timings"
started=$SECONDS
last_step=""
last_id=""
step_started=$SECONDS
# `step <id> <description>`: ends the previous step (its duration, and a `step <id>: <s>s` line in the table).
end_step() {
  [ -n "$last_step" ] || return 0
  local secs=$((SECONDS - step_started))
  printf '== %s in %s s: %s\n' "$1" "$secs" "$last_step"
  printf 'step %s: %ss%s\n' "$last_id" "$secs" "$([ "$1" = done ] || echo " ($1)")" | tee -a "$timings"
  last_step=""
}
step() {
  end_step done
  last_id=$1
  shift
  last_step="$*"
  step_started=$SECONDS
  printf '\n== %s\n' "$*"
}
# One closing line with the number of vitest tests run by turbo, on success and on failure alike.
# (awk alone: a grep that matches nothing would end the script under pipefail; colours dropped first, since turbo
# replays a cached task's log as it was written, in colour when that run had a terminal)
count() { awk -v what="$1" '{ gsub(/\033\[[0-9;]*m/, "") } /Tests +[0-9]/ && match($0, "[0-9]+ " what) { s += substr($0, RSTART, RLENGTH) + 0 } END { print s + 0 }' "$log"; }
finish() {
  status=$?
  end_step "$([ "$status" = 0 ] && echo done || echo FAILED)"
  printf '\n== step timings (wall clock; steps of a group overlap)\n'
  cat "$timings"
  printf 'step total: %ss\n' "$((SECONDS - started))"
  printf '\nci: %s s in all, exit %s\n' "$((SECONDS - started))" "$status"
  passed=$(count passed)
  failed=$(count failed)
  # A step that failed outside vitest still counts as a failure on the closing line.
  if [ "$status" != 0 ] && [ "$failed" = 0 ]; then failed=1; fi
  printf '\ntests: %s passed, %s failed\n' "$passed" "$failed"
  rm -rf "$log" "$work"
  exit "$status"
}
trap finish EXIT

# Groups of checks run side by side: `job <id> <description> <command> [count]` queues one (in the order given:
# longest or heaviest first where it matters), `run_group <name> <slots>` runs the queue at most <slots> at a time,
# each with its own log, printed whole when the group ends with its duration (and a `step <id>: <s>s` line), and
# empties the queue (clear_jobs). It returns 1 if any job failed, after printing them all. `count`: the job's output holds vitest
# summaries that the closing `tests:` line counts.
job_ids=()
job_names=()
job_cmds=()
job_count=()
job() { job_ids+=("$1"); job_names+=("$2"); job_cmds+=("$3"); job_count+=("${4:-}"); }
clear_jobs() { job_ids=() job_names=() job_cmds=() job_count=(); }
run_group() {
  local group=$1 slots=$2 dir="$work/$1" running=0 n status secs failed=()
  mkdir -p "$dir"
  for n in "${!job_cmds[@]}"; do
    if [ "$running" -ge "$slots" ]; then
      wait -n || true
      running=$((running - 1))
    fi
    (
      s=$SECONDS rc=0
      bash -c "${job_cmds[$n]}" >"$dir/$n.log" 2>&1 </dev/null || rc=$?
      echo "$rc $((SECONDS - s))" >"$dir/$n.status"
    ) &
    running=$((running + 1))
  done
  wait || true
  for n in "${!job_cmds[@]}"; do
    read -r status secs <"$dir/$n.status" || { status=1; secs=0; }
    printf '\n== %s\n' "${job_names[$n]}"
    cat "$dir/$n.log"
    [ -n "${job_count[$n]}" ] && cat "$dir/$n.log" >>"$log"
    if [ "$status" = 0 ]; then
      printf '== done in %s s: %s\n' "$secs" "${job_names[$n]}"
      printf 'step %s: %ss (in %s)\n' "${job_ids[$n]}" "$secs" "$group" >>"$timings"
    else
      printf '== FAILED (exit %s) in %s s: %s\n' "$status" "$secs" "${job_names[$n]}"
      printf 'step %s: %ss (in %s, FAILED)\n' "${job_ids[$n]}" "$secs" "$group" >>"$timings"
      failed+=("${job_names[$n]}")
    fi
  done
  clear_jobs
  if [ "${#failed[@]}" -gt 0 ]; then
    printf '\n%s check(s) failed:\n' "${#failed[@]}"
    printf '  - %s\n' "${failed[@]}"
    return 1
  fi
}

# 1. The source checks beside typecheck + build. They are single-threaded but Biome, and short; turbo's build
# leaves a core idle while one package waits on another (net, then protocol-core, then the servers).
job lint-biome "lint: Biome (biome ci)" "npx biome ci ."
job lint-knip "lint: knip (unused files, exports and dependencies)" "npx knip --no-progress"
job lint-imports "lint: no package reaching into another's src/ or test/ (check-imports.mjs)" "node tooling/scripts/check-imports.mjs"
job lockfile "lockfile complete for every platform (turbo, Biome, esbuild, Rollup binaries for macOS and Windows too)" "node tooling/scripts/check-lockfile.mjs"
job readmes "README sections (every server and the template: the same headings in the same order)" "node tooling/scripts/check-readmes.mjs"
step build "typecheck and build (turbo), beside lint, lockfile and README checks (printed after the build)"
run_group source 5 >"$work/source.out" 2>&1 &
source_pid=$!
clear_jobs # (the queue went to the background group)
build_status=0
npx turbo run typecheck build --output-logs=full || build_status=$?
source_status=0
wait "$source_pid" || source_status=$?
cat "$work/source.out"
[ "$build_status" = 0 ] || { echo "typecheck or build failed (exit $build_status)"; exit "$build_status"; }
[ "$source_status" = 0 ] || exit 1

# 2. Two test tasks at a time: each vitest runs one worker per core but one, and several timing tests (fetch's
# conversion deadline, git's comparisons with the CLI) misfire on an oversubscribed 2-core runner.
step test-node20 "unit and stdio tests (turbo, two packages at a time)"
npx turbo run test test:stdio --concurrency=2 --continue --output-logs=full 2>&1 | tee -a "$log"

node22_alone=0
if [ "${MCPKIT_FRESH_CLONE:-}" = 1 ]; then
  step test-node22 "unit and stdio tests on Node 22: skipped in the fresh clone (the checkout's run did them)"
elif [ "${MCPKIT_CI_NODE22_ALONE:-}" = 1 ]; then
  node22_alone=1
  step test-node22 "unit and stdio tests on Node 22 (npm's node@22), two packages at a time"
  bash tooling/scripts/test-node22.sh 2>&1 | tee -a "$log"
fi

# 3. The checks on the built packages: they build, pack, install and drive the servers from the outside; most of
# their time is spent waiting on npm, podman and child processes. Two at a time; the Node 22 tests (one package at a
# time) hold one slot from the start; the release check, by far the longest (a cold build of the versioned clone,
# then verdaccio, publish and npx -y of every server: 652 s on a loaded machine), takes the other first, so that it
# never runs alone at the end and its network waits meet the tests' CPU. Then the checks that mostly wait (npm
# installs, child processes), and last the other ones that build (images, fresh clone, template).
# MCPKIT_CI_SLOTS: jobs at a time (2).
# The Node 22 pass runs with --only (no build tasks: the build above made dist/, which the other checks read meanwhile).
if [ "${MCPKIT_FRESH_CLONE:-}" != 1 ] && [ "$node22_alone" = 0 ]; then
  job test-node22 "unit and stdio tests on Node 22 (npm's node@22), one package at a time" "MCPKIT_TEST_CONCURRENCY=1 bash tooling/scripts/test-node22.sh --only" count
fi
if [ "${MCPKIT_FRESH_CLONE:-}" != 1 ]; then
  job release "first release: version-packages, publish to a loopback registry (verdaccio), npx -y every server from it" "node tooling/scripts/check-release.mjs"
fi
job registry "MCP Registry manifests (server.json: registry schema, package.json, each bin's --help)" "node tooling/scripts/check-registry.mjs"
job pack "published tarballs start through npx (offline from the workspace)" "bash tooling/scripts/check-pack.sh"
job mcpb "Claude Desktop bundles (.mcpb): built, validated with the official mcpb CLI, started over stdio" "bash tooling/scripts/check-mcpb.sh"
job interop "interop: official conformance suite and Inspector CLI" "bash tooling/scripts/interop.sh"
job interop-client "interop: the agent as a client (conformance 0.2.0-alpha.12 client scenarios, 2026-07-28)" "node tooling/scripts/interop-client.mjs"
job balancer "load balancer: every server through HAProxy in front of 3 replicas, both protocol versions" "node tooling/balancer/check-balancer.mjs"
job images "OCI images (podman): built from the tarballs, driven over stdio and HTTP" "bash tooling/scripts/check-images.sh"
if [ "${MCPKIT_FRESH_CLONE:-}" = 1 ] || [ "${MCPKIT_SKIP_FRESH_CLONE:-}" = 1 ]; then
  printf '\n== fresh clone: skipped (%s)\n' "$([ "${MCPKIT_FRESH_CLONE:-}" = 1 ] && echo 'this run is the fresh clone' || echo 'MCPKIT_SKIP_FRESH_CLONE=1')"
else
  job fresh-clone "fresh clone: install and the README's first command on a clone of HEAD outside the checkout, empty pnpm caches" "bash tooling/scripts/fresh-clone.sh"
fi
job template "scaffolded server builds and passes its tests" "bash tooling/scripts/check-template.sh"

step checks "Node 22 tests, registry, packaging, images, bundles, template, interop, load balancer, release and fresh-clone checks (two at a time)"
run_group checks "${MCPKIT_CI_SLOTS:-2}"
