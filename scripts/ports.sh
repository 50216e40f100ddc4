# Sourced by the demo scripts: `free_port NAME` sets the variable NAME to a loopback port that
# nothing listens on, below the kernel's ephemeral range (outgoing connections take their
# ports from there, and a port one of them holds cannot be bound), never one given before.
ports_given=" "
free_port() {
  local low=10000 high port
  read -r high _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || high=32768
  [ "$high" -gt $((low + 1000)) ] || low=1024
  for _ in $(seq 200); do
    port=$((low + (RANDOM * 32768 + RANDOM) % (high - low)))
    case "$ports_given" in *" $port "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      ports_given+="$port "
      printf -v "$1" '%s' "$port"
      return 0
    fi
  done
  echo "no free loopback port found below $high" >&2
  return 1
}
