# shellcheck shell=bash disable=SC2034
# (SC2034: the variables set here are used by the scripts that source this file.)
# Shared by scripts/release.sh and scripts/check-release.sh (sourced, not run).
# Sets ROOT, the targets, VERSION, TARGET_DIR, BIN_DIR, GEN_DIR, DIST_DIR, TOOLS_DIR, and
# defines the helpers.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

# The release targets. The first is the one this machine runs: its binary writes the man page
# and completions that every artefact ships, so it is always built.
HOST_TARGET=x86_64-unknown-linux-musl
ALL_TARGETS=(
  x86_64-unknown-linux-musl  # static, any x86_64 Linux: tarball and .deb (amd64)
  aarch64-unknown-linux-musl # static, any arm64 Linux (Graviton, Ampere): tarball and .deb (arm64)
  x86_64-pc-windows-gnu      # Windows 10 and later: zip
  x86_64-apple-darwin        # macOS on Intel: tarball
  aarch64-apple-darwin       # macOS on Apple silicon: tarball
)
TARGET="$HOST_TARGET"
# Pinned so that two runs of the release script build the same packages with the same tools.
CARGO_DEB_VERSION=3.8.0
# 0.24 passes MACOSX_DEPLOYMENT_TARGET on to zig (0.21 left zig at its own default, macOS 13).
CARGO_ZIGBUILD_VERSION=0.24.1
ZIGLANG_VERSION=0.14.1

export CARGO_TERM_COLOR=never
# Network steps (apt, crates.io, rustup) retry instead of failing a run on one dropped packet.
export CARGO_NET_RETRY=5
export RUSTUP_MAX_RETRIES=5

# Seconds since the outermost script started, shown on each step so a slow one stands out.
RELEASE_STARTED="${RELEASE_STARTED:-$(date +%s)}"
export RELEASE_STARTED
say() { printf '== [%d s] %s\n' "$(($(date +%s) - RELEASE_STARTED))" "$*" >&2; }
die() {
  printf '%s: %s\n' "$(basename "$0")" "$*" >&2
  exit 1
}

# Runs a command as root: directly when we are root, else through `sudo -n` (never a prompt).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@"
  else
    die "need root to run: $* (or install it yourself)"
  fi
}

APT_UPDATED=
# Installs Debian packages (apt-get update once per run first). Retries downloads, and waits
# up to 5 min for a dpkg lock held by another apt run rather than failing at once.
apt_install() {
  command -v apt-get >/dev/null 2>&1 || die "no apt-get here; install $* by hand"
  say "installing $*"
  export DEBIAN_FRONTEND=noninteractive
  if [ -z "$APT_UPDATED" ]; then
    as_root apt-get -o Acquire::Retries=5 -o DPkg::Lock::Timeout=300 update -qq
    APT_UPDATED=1
  fi
  as_root apt-get -o Acquire::Retries=5 -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$@" >/dev/null
}

# Installs PACKAGE unless COMMAND is on PATH: `need_command COMMAND PACKAGE`.
need_command() {
  command -v "$1" >/dev/null 2>&1 && return 0
  apt_install "$2"
  command -v "$1" >/dev/null 2>&1 || die "installed $2 but $1 is still missing"
}

# Installs PACKAGE unless FILE exists: `need_file FILE PACKAGE`, for data-only packages such
# as bash-completion, which put no command on PATH.
need_file() {
  [ -e "$1" ] && return 0
  apt_install "$2"
  [ -e "$1" ] || die "installed $2 but $1 is still missing"
}

# The crate's version and Cargo's target directory, from Cargo itself (honours
# CARGO_TARGET_DIR and build.target-dir).
METADATA="$(cargo metadata --locked --no-deps --format-version 1)"
VERSION="$(printf '%s' "$METADATA" | sed -n 's/.*"name":"payverify","version":"\([^"]*\)".*/\1/p')"
TARGET_DIR="$(printf '%s' "$METADATA" | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')"
if [ -z "$VERSION" ] || [ -z "$TARGET_DIR" ]; then
  die "could not read the version and target directory from cargo metadata"
fi
# Where cargo puts TARGET's release build: `bin_dir TARGET`.
bin_dir() { printf '%s/%s/release' "$TARGET_DIR" "$1"; }
BIN_DIR="$(bin_dir "$TARGET")"
# The man page and completions, generated once by the host target's binary.
GEN_DIR="$BIN_DIR/gen"
DIST_DIR="$ROOT/dist"
# Tools the release installs for itself (cargo-deb, cargo-zigbuild, zig), kept out of the
# user's own ~/.cargo/bin and Python.
TOOLS_DIR="$TARGET_DIR/tools"

# The archive's name without extension (also its top directory): `archive_name TARGET`.
archive_name() { printf 'payverify-%s-%s' "$VERSION" "$1"; }
# The archive's file name: a zip for Windows, a gzipped tarball elsewhere.
archive_file() {
  case "$1" in
  *-windows-*) printf '%s.zip' "$(archive_name "$1")" ;;
  *) printf '%s.tar.gz' "$(archive_name "$1")" ;;
  esac
}
# The Debian architecture of a Linux target, empty for the others (they get no .deb).
deb_arch() {
  case "$1" in
  x86_64-unknown-linux-musl) printf amd64 ;;
  aarch64-unknown-linux-musl) printf arm64 ;;
  esac
}
deb_file() { printf 'payverify_%s-1_%s.deb' "$VERSION" "$(deb_arch "$1")"; }
# The executable's file name on TARGET.
exe_name() {
  case "$1" in
  *-windows-*) printf payverify.exe ;;
  *) printf payverify ;;
  esac
}
TARBALL_NAME="$(archive_name "$TARGET")"
DEB_NAME="$(deb_file "$TARGET")"

# Completion script file names, by shell: the names each shell's loader looks for.
declare -A COMPLETION_FILE=(
  [bash]=payverify.bash
  [zsh]=_payverify
  [fish]=payverify.fish
  [powershell]=_payverify.ps1
  [elvish]=payverify.elv
)
SHELLS=(bash zsh fish powershell elvish)
