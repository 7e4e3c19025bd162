#!/usr/bin/env bash
# The README's set-up on a fresh Debian 12: a bookworm root made by debootstrap (what a new install has:
# no compiler, no git, no make), entered with chroot, where the README's commands run as a new user types
# them. It fails on the first step that fails, and when a step installs a package without first saying
# which (`parlint: installing ...`). Needs root, debootstrap and a Debian mirror; about 45 minutes on two
# cores, so it is `make test-fresh-machine`, not part of `make test`.
#
#   tests/fresh_machine.sh [--keep] [--run-only] [ROOT]     (ROOT defaults to /var/tmp/parlint-fresh)
#
# The commands are the README's (tests/test_setup.py checks that the README still says each of them).
# The checkout reaches the root as a git bundle, never as a bind mount: removing the root can then never
# reach into the checkout, and the root is only removed when nothing is mounted under it.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
keep=0
run_only=0
root=/var/tmp/parlint-fresh
for arg in "$@"; do
  case $arg in
    --keep) keep=1 ;;
    --run-only) run_only=1 ;;
    -*) echo "fresh_machine.sh: unknown argument $arg" >&2; exit 2 ;;
    *) root=$arg ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "fresh_machine.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh_machine.sh: apt-get install -y debootstrap" >&2; exit 2; }
mirror=${PARLINT_DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$(realpath -m "$root")
case $root in /|/usr|/var|/tmp|/var/tmp|/home|/root|"$here"|"$here"/*)
  echo "fresh_machine.sh: refusing root $root" >&2; exit 2 ;; esac

# One run at a time per root.
exec 9>"$root.lock"
flock -n 9 || { echo "fresh_machine.sh: another run uses $root" >&2; exit 2; }

mounts_under() { awk -v r="$root/" 'index($2 "/", r) == 1 { print $2 }' /proc/self/mounts; }
remove_root() {
  if [ -n "$(mounts_under)" ]; then
    echo "fresh_machine.sh: not removing $root, still mounted: $(mounts_under | tr '\n' ' ')" >&2
    return 1
  fi
  rm -rf --one-file-system "$root"
}
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}"; done
  [ "$keep" -eq 1 ] || remove_root
}
trap cleanup EXIT

remove_root
mkdir -p "$root"
echo "== debootstrap bookworm into $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
  { tail -20 "$root.debootstrap.log" >&2; exit 1; }
# The machine's own network set-up comes along, as a fresh install on this network would have it: its
# resolver, the certificate authorities it adds (an intercepting proxy's), and the proxy variables.
cp /etc/resolv.conf "$root/etc/resolv.conf"
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
fi
network_env=()
for name in NODE_EXTRA_CA_CERTS SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE \
    http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  value=${!name-}
  [ -n "$value" ] || continue
  network_env+=("$name=$value")
  # A certificate file the variable names is there before the ca-certificates package makes its own.
  if [ -f "$value" ] && [[ $name == *CERT* || $name == *CA_* ]] && [ ! -e "$root$value" ]; then
    mkdir -p "$(dirname "$root$value")" && cp "$value" "$root$value"
  fi
done
mount -t proc proc "$root/proc" && mounted+=("$root/proc")
mount -t sysfs sysfs "$root/sys" && mounted+=("$root/sys")
mount --bind /dev "$root/dev" && mounted+=("$root/dev")
mount -t devpts devpts "$root/dev/pts" -o newinstance,ptmxmode=0666 && mounted+=("$root/dev/pts")
mount -t tmpfs tmpfs "$root/dev/shm" && mounted+=("$root/dev/shm")
git -C "$here" bundle create -q "$root/parlint.bundle" HEAD

# One step of the README, as root in the fresh system; its output is kept beside the root.
step() {
  local name=$1 dir=$2 command=$3 log="$root.$1.log"
  echo "== $name: $command"
  local start=$SECONDS
  if ! chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      LANG=C.UTF-8 TERM=dumb "${network_env[@]}" bash -c "cd $dir && $command" >"$log" 2>&1; then
    tail -40 "$log" >&2
    echo "fresh_machine.sh: step '$name' failed (log: $log)" >&2
    exit 1
  fi
  echo "   $((SECONDS - start)) s"
  # An apt-get install that nobody announced is a silent install.
  if [ "$name" != prerequisites ] && grep -q "^Setting up " "$log" && ! grep -q "^parlint: installing " "$log"; then
    echo "fresh_machine.sh: step '$name' installed packages without saying which (log: $log)" >&2
    exit 1
  fi
}

step prerequisites / "apt-get update -qq && apt-get install -y git make"
# The README clones the public repository; here the clone's source is the checkout under test.
step clone / "git clone -q /parlint.bundle /parlint"
step run /parlint "make run"
grep -Eq "^Found [0-9]+ problems? " "$root.run.log" ||
  { echo "fresh_machine.sh: make run did not lint the examples (log: $root.run.log)" >&2; exit 1; }
if [ "$run_only" -eq 0 ]; then
  step test /parlint "make test"
  grep -q "100% tests passed" "$root.test.log" ||
    { echo "fresh_machine.sh: make test did not pass every test (log: $root.test.log)" >&2; exit 1; }
fi
echo "fresh_machine.sh: the README's set-up passed on a fresh Debian 12"
