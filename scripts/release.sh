#!/usr/bin/env bash
# Makes the release artifacts into dist/ (or --out DIR):
#   memberctl-VERSION-linux-amd64   a static binary (glibc linked in: it runs without /usr/lib)
#   memberctl_VERSION_amd64.deb     that binary, the man pages, the shell completions, the
#                                   autopilot's systemd unit and alert rules (packaging/)
#   SHA256SUMS                      over both (`sha256sum -c SHA256SUMS` inside the folder)
# The Dockerfile at the top of the tree builds the autopilot's image from dist/.
#
# By default the binary is built here (release profile, `-C target-feature=+crt-static` for
# the host's target, so proc macros and build scripts still build for the host) and checked:
# ldd finds no dynamic section, and it runs, resolves `localhost` and serves a local cluster in
# a mount namespace whose /usr/lib is empty (needs root, for unshare -m).
# `--binary PATH` packages a binary built elsewhere instead (the tests give theirs, so CI does
# not build twice); a dynamic one is packaged as it is, with a warning.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: scripts/release.sh [--binary PATH] [--out DIR]
  --binary PATH  package this memberctl binary instead of building the static one
  --out DIR      where the artifacts go (default: dist/ in the source tree)
EOF
}

die() {
  echo "release.sh: $*" >&2
  exit 1
}

root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/dist"
binary=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary | --out)
      [ $# -ge 2 ] || { echo "release.sh: $1 needs a value" >&2; usage >&2; exit 2; }
      if [ "$1" = --binary ]; then binary="$2"; else out="$2"; fi
      shift 2
      ;;
    --binary=*) binary="${1#*=}"; shift ;;
    --out=*) out="${1#*=}"; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "release.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done

target=x86_64-unknown-linux-gnu
arch=amd64
[ "$(uname -m)" = x86_64 ] || die "only x86_64 Linux is packaged (this machine is $(uname -m))"
for tool in dpkg-deb gzip sha256sum objcopy readelf; do
  command -v "$tool" >/dev/null 2>&1 || die "$tool is not installed (apt-get install dpkg coreutils gzip binutils)"
done

# The version of the [package] section of Cargo.toml.
version="$(sed -n '/^\[package\]/,/^\[/s/^version *= *"\([^"]*\)".*/\1/p' "$root/Cargo.toml")"
[ -n "$version" ] || die "no version found in the [package] section of $root/Cargo.toml"
# The package's long description starts with Cargo.toml's.
about="$(sed -n '/^\[package\]/,/^\[/s/^description *= *"\(.*\)"$/\1/p' "$root/Cargo.toml")"
maintainer="${MEMBERCTL_DEB_MAINTAINER:-memberctl maintainers <maintainers@users.noreply.a-seed-67ccea21.example>}"
# Reproducible: the package's file times from the last commit (given to dpkg-deb only: the C
# dependencies' build scripts rebuild when SOURCE_DATE_EPOCH changes).
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}"

# The static binary: built for the host's target named explicitly, so that RUSTFLAGS reach only
# the target's code. No rustup download: the host's standard library is the one installed.
# relocation-model=static: a fixed-address executable, as build.rs links the dynamic one
# (it starts without relocating itself); a static PIE otherwise.
build_static() {
  local sysroot
  sysroot="$(rustc --print sysroot)"
  [ -d "$sysroot/lib/rustlib/$target/lib" ] ||
    die "the standard library for $target is not installed (rustup target add $target)"
  echo "building memberctl $version for $target, static (release profile)" >&2
  local start=$SECONDS
  binary="$(cd "$root" && RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
    cargo build --release --locked --target "$target" --bin memberctl \
    --message-format=json-render-diagnostics |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)"
  [ -x "$binary" ] || die "cargo did not report where it built memberctl"
  echo "built in $((SECONDS - start)) s: $binary ($(stat -c %s "$binary") bytes)" >&2
}

# Whether ldd finds the binary static (a static-pie reads "statically linked").
is_static() {
  local said
  said="$(ldd "$1" 2>&1 || true)"
  case "$said" in
    *"not a dynamic executable"* | *"statically linked"*) return 0 ;;
    *) return 1 ;;
  esac
}

# The static binary runs where /usr/lib (and so /lib, /lib64's loader) is empty: --version, a
# local cluster started and listed through `localhost`, and the peer-URL rule's host look-up
# (glibc's files and dns lookups are built into its static libc; /etc/nsswitch.conf is read).
check_without_usr_lib() {
  command -v unshare >/dev/null 2>&1 || die "unshare is not installed (apt-get install util-linux)"
  [ "$(id -u)" = 0 ] || die "the check in an empty /usr/lib needs root (unshare -m); run as root"
  local dir
  dir="$(mktemp -d)"
  # Everything below runs in the namespace: only the shell (already loaded) and the binary.
  # shellcheck disable=SC2016
  unshare -m bash -c '
    set -u
    bin=$1 dir=$2
    mount -t tmpfs tmpfs /usr/lib || exit 90
    if /bin/true 2>/dev/null; then echo "a dynamic program still runs: /usr/lib is not empty" >&2; exit 91; fi
    echo "in a mount namespace with an empty /usr/lib (a dynamic program fails to start):"
    "$bin" --version || exit 92
    export MEMBERCTL_CLUSTER_DIR=$dir/cluster
    up=$("$bin" cluster up) || { echo "$up"; exit 93; }
    trap "\"$bin\" cluster down >/dev/null 2>&1" EXIT
    first=${up##*endpoints: }
    first=${first%%,*}
    port=${first##*:}
    "$bin" member list --endpoints "http://localhost:$port" >/dev/null || exit 94
    echo "cluster up, and member list --endpoints http://localhost:$port: ok"
    said=$("$bin" member add n4 --learner --peer-urls http://localhost:1 --dry-run 2>&1) ||
      { echo "$said"; exit 95; }
    echo "member add --dry-run --peer-urls http://localhost:1: the host resolves"
    said=$("$bin" member add n4 --learner --peer-urls http://no-such-host.invalid:1 --dry-run 2>&1)
    case "$said" in
      *"does not resolve"*) echo "member add --dry-run --peer-urls http://no-such-host.invalid:1: refused, does not resolve" ;;
      *) echo "$said"; exit 96 ;;
    esac
  ' bash "$1" "$dir" || die "the static binary failed in a namespace without /usr/lib (exit $?)"
  rm -rf "$dir"
}

# The Debian package, built with dpkg-deb from a staged tree.
build_deb() {
  local bin="$1" deb="$2" stage
  stage="$(mktemp -d)"
  local pkg="$stage/memberctl"
  umask 022
  install -D -m 0755 "$bin" "$pkg/usr/bin/memberctl"
  local page
  for page in "$root"/man/*.1; do
    install -D -m 0644 "$page" "$pkg/usr/share/man/man1/$(basename "$page")"
    gzip -9n "$pkg/usr/share/man/man1/$(basename "$page")"
  done
  install -D -m 0644 "$root/completions/memberctl.bash" \
    "$pkg/usr/share/bash-completion/completions/memberctl"
  install -D -m 0644 "$root/completions/_memberctl" \
    "$pkg/usr/share/zsh/vendor-completions/_memberctl"
  install -D -m 0644 "$root/completions/memberctl.fish" \
    "$pkg/usr/share/fish/vendor_completions.d/memberctl.fish"
  install -D -m 0644 "$root/packaging/memberctl-autopilot.service" \
    "$pkg/usr/lib/systemd/system/memberctl-autopilot.service"
  install -D -m 0644 "$root/packaging/memberctl-autopilot.default" \
    "$pkg/etc/default/memberctl-autopilot"
  install -D -m 0644 "$root/packaging/prometheus/memberctl-autopilot-rules.yml" \
    "$pkg/usr/share/doc/memberctl/examples/memberctl-autopilot-rules.yml"
  install -d -m 0755 "$pkg/usr/share/doc/memberctl"
  cat >"$pkg/usr/share/doc/memberctl/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: memberctl

Files: *
License: Apache-2.0
 On Debian systems the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0.
EOF
  install -d -m 0755 "$pkg/DEBIAN"
  local size
  size="$(du -sk --exclude=DEBIAN "$pkg" | cut -f1)"
  # A static binary needs no other package: no Depends.
  cat >"$pkg/DEBIAN/control" <<EOF
Package: memberctl
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Section: admin
Priority: optional
Description: change the membership of etcd clusters safely
 $about.
 .
 It bundles a Raft engine serving etcd's API for local rehearsals, and an
 autopilot that replaces dead voters with a standby learner (systemd unit
 memberctl-autopilot, settings in /etc/default/memberctl-autopilot; not
 enabled on install).
EOF
  echo /etc/default/memberctl-autopilot >"$pkg/DEBIAN/conffiles"
  chmod 0644 "$pkg/DEBIAN/control" "$pkg/DEBIAN/conffiles"
  # gzip -6: every dpkg reads it, and it is fast (xz took ten times as long for a third less;
  # gzip -9 three times as long for 1 % less).
  SOURCE_DATE_EPOCH="$epoch" dpkg-deb --root-owner-group -Zgzip -z6 --build "$pkg" "$deb" >/dev/null
  rm -rf "$stage"
}

built=""
if [ -z "$binary" ]; then
  build_static
  built=1
else
  [ -f "$binary" ] && [ -x "$binary" ] || die "--binary $binary: not an executable file"
  binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"
fi
said="$("$binary" --version)" || die "$binary --version failed"
[ "$said" = "memberctl $version" ] ||
  die "$binary says \"$said\", Cargo.toml says $version: rebuild it"
[ "$(od -An -tx1 -N4 "$binary" | tr -d ' \n')" = 7f454c46 ] || die "$binary is not an ELF executable"
if is_static "$binary"; then
  # A static binary that asks for a program interpreter (-no-pie over a static PIE) crashes.
  ! readelf -l "$binary" | grep -q 'program interpreter' ||
    die "$binary is static but asks for a program interpreter: $(readelf -l "$binary" | grep interpreter)"
  echo "ldd $binary: $(ldd "$binary" 2>&1 || true)" >&2
  check_without_usr_lib "$binary" >&2
elif [ -n "$built" ]; then
  die "$binary is dynamically linked: $(ldd "$binary" 2>&1 | head -n 3)"
else
  echo "release.sh: warning: $binary is dynamically linked; packaged as it is (a release is static)" >&2
fi

mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -f "$out"/memberctl-*-linux-"$arch" "$out"/memberctl_*_"$arch".deb "$out/SHA256SUMS"
name="memberctl-$version-linux-$arch"
deb="memberctl_${version}_$arch.deb"
# Without debug information (a release build has none; a test build's is most of it), with
# its symbols (backtraces name functions): the same file loose and in the package.
objcopy --strip-debug "$binary" "$out/$name"
chmod 0755 "$out/$name"
build_deb "$out/$name" "$out/$deb"
(cd "$out" && sha256sum "$name" "$deb" >SHA256SUMS && sha256sum --quiet -c SHA256SUMS)
echo "in $out:"
(cd "$out" && ls -l "$name" "$deb" SHA256SUMS)
