#!/usr/bin/env bash
# Rehearses the safe learner flow on a throw-away 3-member etcd cluster on loopback:
# list, a refused bad add, learner add, start the learner, promote it by name at once (memberctl
# waits for it to start and catch up), status, remove the leader (leadership moves first).
# Needs etcd (Debian: apt-get install etcd-server), or ETCD_BIN=/path/to/etcd for another
# version. Cleans up after itself.
set -euo pipefail
cd "$(dirname "$0")/.."

etcd="${ETCD_BIN:-etcd}"
if ! command -v "$etcd" >/dev/null 2>&1; then
  echo "etcd-demo: etcd is not installed; install it (Debian/Ubuntu: apt-get install etcd-server) and run again" >&2
  exit 2
fi
# MEMBERCTL_BIN runs a memberctl already built (the tests run this script with theirs);
# else where cargo put the release build (CARGO_TARGET_DIR and build.target-dir move it).
memberctl="${MEMBERCTL_BIN:-}"
if [ -z "$memberctl" ]; then
  memberctl="$(cargo build --release --quiet --bin memberctl --message-format=json-render-diagnostics |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
fi
[ -x "$memberctl" ] || { echo "cargo did not report where it built memberctl" >&2; exit 1; }
dir=$(mktemp -d)
pids=()
cleanup() { kill -9 "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT

source scripts/ports.sh
cluster=""
for i in 1 2 3 4; do free_port "client_$i" && free_port "peer_$i"; done
client() { local v="client_$1"; echo "${!v}"; }
peer() { local v="peer_$1"; echo "${!v}"; }
for i in 1 2 3; do cluster+="${cluster:+,}m$i=http://127.0.0.1:$(peer "$i")"; done
start() { # name client-port peer-port initial-cluster state
  "$etcd" --name "$1" --data-dir "$dir/$1" \
    --listen-client-urls "http://127.0.0.1:$2" --advertise-client-urls "http://127.0.0.1:$2" \
    --listen-peer-urls "http://127.0.0.1:$3" --initial-advertise-peer-urls "http://127.0.0.1:$3" \
    --initial-cluster "$4" --initial-cluster-state "$5" >"$dir/$1.log" 2>&1 &
  pids+=($!)
}
for i in 1 2 3; do start "m$i" "$(client "$i")" "$(peer "$i")" "$cluster" new; done
export MEMBERCTL_ENDPOINTS="127.0.0.1:$(client 1),127.0.0.1:$(client 2),127.0.0.1:$(client 3)"
export MEMBERCTL_COMMAND_TIMEOUT=20s

run() { echo; echo "\$ memberctl $*"; "$memberctl" "$@"; }
deadline=$((SECONDS + 30))
until "$memberctl" member status -w json 2>/dev/null | grep -q '"leader": "'; do
  [ "$SECONDS" -lt "$deadline" ] || { echo "etcd-demo: no leader within 30 s; see $dir/m1.log" >&2; exit 1; }
  sleep 0.1
done
run member list -w table
run member add m4 --learner --peer-urls http://127.0.0.1 || echo "(refused as expected: exit $?)"
run member add m4 --learner --peer-urls "http://127.0.0.1:$(peer 4)" | tee "$dir/add.txt"
# Start the learner exactly as `member add` said (read into plain variables: etcd
# itself would read exported ETCD_* variables and refuse them beside its flags).
setting() { sed -n "s/^$1=\"\(.*\)\"$/\1/p" "$dir/add.txt"; }
start "$(setting ETCD_NAME)" "$(client 4)" "$(peer 4)" "$(setting ETCD_INITIAL_CLUSTER)" \
  "$(setting ETCD_INITIAL_CLUSTER_STATE)"
run member promote m4 --timeout 60s
run member status -w table
leader=$("$memberctl" member status -w json | sed -n 's/^  "leader": "\(.*\)",$/\1/p')
run member remove "$leader"
run member list
