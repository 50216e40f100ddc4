# Sourced by the demo scripts: `free_port NAME` sets the variable NAME to a loopback port that
# nothing listens on, below the kernel's ephemeral range (outgoing connections take their
# ports from there, and a port one of them holds cannot be bound), never one given before,
# and reserved for ten minutes in memberctl's book of ports ($TMPDIR/memberctl-ports-UID: one
# file per port, written under the lock `.lock`), so that a `memberctl cluster up` or
# `start-node` run meanwhile does not choose it, nor this one a port memberctl chose.
# Its own variables carry a prefix no caller uses (`local port` would hide a caller's `port`
# from `printf -v`, which then sets the local instead); a NAME with that prefix is refused.
ports_given=" "
free_port() {
  case "$1" in
    "" | free_port_*) echo "free_port: give the name of a variable to set (not free_port_*)" >&2; return 2 ;;
  esac
  local free_port_low=10000 free_port_high free_port_try
  read -r free_port_high _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || free_port_high=32768
  [ "$free_port_high" -gt $((free_port_low + 1000)) ] || free_port_low=1024
  for _ in $(seq 200); do
    free_port_try=$((free_port_low + (RANDOM * 32768 + RANDOM) % (free_port_high - free_port_low)))
    case "$ports_given" in *" $free_port_try "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$free_port_try") 2>/dev/null && free_port_reserve "$free_port_try"; then
      ports_given+="$free_port_try "
      printf -v "$1" '%s' "$free_port_try"
      return 0
    fi
  done
  echo "no free loopback port found below $free_port_high" >&2
  return 1
}

# `free_port_reserve PORT`: writes PORT into memberctl's book unless it holds it from the last
# ten minutes; fails if it does. Where the book cannot be written, the port is taken unreserved.
free_port_reserve() {
  local free_port_book="${TMPDIR:-/tmp}/memberctl-ports-$EUID"
  mkdir -p "$free_port_book" 2>/dev/null || return 0
  (
    if command -v flock >/dev/null; then
      exec 9>>"$free_port_book/.lock" && flock 9
    fi
    free_port_file="$free_port_book/$1"
    if [ -e "$free_port_file" ]; then
      [ $(($(date +%s) - $(stat -c %Y "$free_port_file" 2>/dev/null || echo 0))) -gt 600 ] || exit 1
    fi
    touch "$free_port_file" 2>/dev/null || true
  )
}
