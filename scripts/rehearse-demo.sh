#!/usr/bin/env bash
# Rehearses a membership change on a copy of production: a throw-away one-member etcd
# ("production") is filled with generated data and saved with `etcdctl snapshot save`;
# `memberctl cluster up --from-snapshot` starts a local 3-member copy of it; the planned
# change (grow to 5 members) runs there with `member apply`, timed; then the copy and
# production are compared (key count, revision). Production is never changed.
# Needs etcd and etcdctl (Debian/Ubuntu: apt-get install etcd-server etcd-client), or
# ETCD_BIN=/path/to/etcd for another server version. KEYS (default 20000) and VALUE_BYTES
# (default 512) size the data. Cleans up after itself; exits 1 when the copy differs.
set -euo pipefail
cd "$(dirname "$0")/.."

etcd="${ETCD_BIN:-etcd}"
for tool in "$etcd" etcdctl; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "rehearse-demo: $tool is not installed; install etcd (Debian/Ubuntu: apt-get install etcd-server etcd-client) and run again" >&2
    exit 2
  fi
done
keys="${KEYS:-20000}"
value_bytes="${VALUE_BYTES:-512}"
# MEMBERCTL_BIN runs a memberctl already built (the tests run this script with theirs);
# else where cargo put the release build (CARGO_TARGET_DIR and build.target-dir move it).
memberctl="${MEMBERCTL_BIN:-}"
if [ -z "$memberctl" ]; then
  memberctl="$(cargo build --release --quiet --bin memberctl --message-format=json-render-diagnostics |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
fi
[ -x "$memberctl" ] || { echo "cargo did not report where it built memberctl" >&2; exit 1; }
dir=$(mktemp -d)
export MEMBERCTL_CLUSTER_DIR="$dir/rehearsal"
etcd_pid=""
cleanup() {
  "$memberctl" cluster down >/dev/null 2>&1 || true
  [ -z "$etcd_pid" ] || kill -9 "$etcd_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

# "Production": one etcd member on loopback. A port another process took between the choice
# and etcd's bind makes etcd exit: then new ports, up to five times, each wait bounded.
source scripts/ports.sh
start_production() {
  free_port client_port && free_port peer_port || return 1
  prod="127.0.0.1:$client_port"
  "$etcd" --name prod --data-dir "$dir/prod" \
    --listen-client-urls "http://$prod" --advertise-client-urls "http://$prod" \
    --listen-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
    --initial-cluster "prod=http://127.0.0.1:$peer_port" >"$dir/prod.log" 2>&1 &
  etcd_pid=$!
  local deadline=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$deadline" ]; do
    kill -0 "$etcd_pid" 2>/dev/null || { etcd_pid=""; rm -rf "$dir/prod"; return 1; }
    ctl endpoint health >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  kill -9 "$etcd_pid" 2>/dev/null || true
  wait "$etcd_pid" 2>/dev/null || true
  etcd_pid=""
  rm -rf "$dir/prod"
  return 1
}
ctl() { ETCDCTL_API=3 etcdctl --dial-timeout 1s --command-timeout 5s --endpoints "$prod" "$@"; }
started=""
for _ in 1 2 3 4 5; do start_production && { started=1; break; }; done
if [ -z "$started" ]; then
  echo "rehearse-demo: production's etcd did not start; its log ($dir/prod.log) ends:" >&2
  tail -n 20 "$dir/prod.log" >&2
  exit 1
fi

echo "filling production with $keys keys of $value_bytes bytes (100 per transaction)…"
value=$(head -c "$value_bytes" /dev/zero | tr '\0' v)
for ((batch = 0; batch < keys; batch += 100)); do
  {
    echo
    for ((i = batch; i < batch + 100 && i < keys; i++)); do printf 'put app/key%08d %s\n' "$i" "$value"; done
    echo
    echo
  } | ctl txn >/dev/null
done
# Some history: every tenth of the first 1000 keys written again, a key on a lease.
for ((i = 0; i < keys && i < 1000; i += 10)); do ctl put "$(printf 'app/key%08d' "$i")" again >/dev/null; done
lease=$(ctl lease grant 3600 | awk '{print $2}')
ctl put app/session "$lease" --lease="$lease" >/dev/null

run() { echo; echo "\$ $*"; "$@"; }
run etcdctl --endpoints "$prod" snapshot save "$dir/prod.db" 2>/dev/null
run "$memberctl" snapshot status "$dir/prod.db"

# The copy: three local members restored from the snapshot.
ms() { echo $(($(date +%s%N) / 1000000)); }
start=$(ms)
run "$memberctl" cluster up --from-snapshot "$dir/prod.db" --nodes 3 -w simple
echo "(cluster up --from-snapshot took $(($(ms) - start)) ms)"
run "$memberctl" member list -w table

# The planned change: grow to five members, learners first, promoted after catch-up.
target=$("$memberctl" member list -w simple | awk -F', ' '{printf "%s%s=%s", sep, $3, $4; sep=","}')
free_port n4_port && free_port n5_port
target="$target,n4=http://127.0.0.1:$n4_port,n5=http://127.0.0.1:$n5_port"
run "$memberctl" member apply --target "$target" --dry-run
start=$(ms)
run "$memberctl" member apply --target "$target" --start-local --timeout 10m
echo "(the change took $(($(ms) - start)) ms on a copy of $keys keys)"
run "$memberctl" member status -w table

# The copy holds what production holds (a ranged read with a limit counts every key).
count() { ETCDCTL_API=3 etcdctl --endpoints "$1" get app/ --prefix --limit 1 -w json |
  sed -n 's/.*"revision":\([0-9]*\).*"count":\([0-9]*\).*/revision \1, \2 keys/p'; }
copy=$("$memberctl" member list -w simple | awk -F', ' 'NR == 1 {print $5}')
theirs=$(count "$prod")
ours=$(count "$copy")
echo
echo "production: $theirs"
echo "rehearsal:  $ours"
if [ -z "$theirs" ] || [ "$theirs" != "$ours" ]; then
  echo "rehearse-demo: the copy differs from production" >&2
  exit 1
fi
run "$memberctl" cluster down
