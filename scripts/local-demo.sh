#!/usr/bin/env bash
# The README's quick start on the bundled engine: a local 3-member cluster, a learner
# added, started, promoted after catch-up, shown, removed; then the cluster is stopped.
# Needs only the Rust toolchain. Uses its own directory, so it leaves ./.memberctl alone.
set -euo pipefail
cd "$(dirname "$0")/.."
# MEMBERCTL_BIN runs a memberctl already built (the tests run this script with theirs);
# else where cargo put the release build (CARGO_TARGET_DIR and build.target-dir move it).
memberctl="${MEMBERCTL_BIN:-}"
if [ -z "$memberctl" ]; then
  memberctl="$(cargo build --release --quiet --bin memberctl --message-format=json-render-diagnostics |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
fi
[ -x "$memberctl" ] || { echo "cargo did not report where it built memberctl" >&2; exit 1; }
export MEMBERCTL_CLUSTER_DIR="${MEMBERCTL_CLUSTER_DIR:-$(mktemp -d)/cluster}"
trap '"$memberctl" cluster down >/dev/null 2>&1 || true' EXIT

run() { echo; echo "\$ memberctl $*"; "$memberctl" "$@"; }
source scripts/ports.sh
free_port port
[ -f "$MEMBERCTL_CLUSTER_DIR/cluster.json" ] || run cluster up
run member list -w table
run member add n4 --learner --peer-urls "http://127.0.0.1:$port"
run cluster start-node n4
run member promote n4 --timeout 60s
run member status -w table
run member remove n4
run member list
run cluster down
