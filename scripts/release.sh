#!/usr/bin/env bash
# Builds payverify's release artefacts into dist/ from the working tree (dist/ is emptied
# first, so it holds exactly one release):
#
#   payverify-<v>-x86_64-unknown-linux-musl.tar.gz    static binary, man page, completions, docs
#   payverify-<v>-aarch64-unknown-linux-musl.tar.gz   the same for arm64 Linux
#   payverify_<v>-1_amd64.deb, payverify_<v>-1_arm64.deb   those binaries, Debian layout
#   payverify-<v>-x86_64-pc-windows-gnu.zip           payverify.exe, README and docs/, licences,
#                                                      _payverify.ps1 (PowerShell completion)
#   payverify-<v>-x86_64-apple-darwin.tar.gz          macOS (Intel)
#   payverify-<v>-aarch64-apple-darwin.tar.gz         macOS (Apple silicon)
#   <each of those>.sha256, and SHA256SUMS listing them all
#   payverify.rb (Homebrew formula), payverify.json (Scoop manifest): generated from the
#     checksums, when every archive they name was built
#
# Usage: scripts/release.sh                  every target
#        scripts/release.sh --target TRIPLE  only TRIPLE (repeatable); the x86_64 Linux target
#                                            is always built: its binary writes the man page
#                                            and completions every artefact ships
# Environment: RELEASE_BASE_URL, where the archives will be downloaded from (the formula and
# the manifest name it); default https://github.com/payverify/payverify/releases/download/v<v>.
#
# Installs what is missing: the Rust targets (rustup); Debian's musl-tools (ring's C for the
# x86_64 musl build) and gcc-mingw-w64-x86-64 (compiler and linker for Windows); zig from
# PyPI's ziglang and cargo-zigbuild from crates.io (compiler and linker for arm64 Linux and
# macOS: zig ships libc and macOS stubs, so no Apple SDK is needed); cargo-deb. Tools go into
# <target dir>/tools, pinned, so the user's own cargo tools and Python are left alone.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

targets=("$HOST_TARGET")
all=1
while [ $# -gt 0 ]; do
  case "$1" in
  --target)
    [ $# -ge 2 ] || die "--target needs a target triple"
    printf '%s\n' "${ALL_TARGETS[@]}" | grep -qxF -- "$2" ||
      die "unknown target $2 (one of: ${ALL_TARGETS[*]})"
    [ "$2" = "$HOST_TARGET" ] || targets+=("$2")
    all=
    shift 2
    ;;
  -h | --help)
    sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
  *) die "unknown argument $1 (see --help)" ;;
  esac
done
[ -z "$all" ] || targets=("${ALL_TARGETS[@]}")
RELEASE_BASE_URL="${RELEASE_BASE_URL:-https://github.com/payverify/payverify/releases/download/v$VERSION}"

say "payverify $VERSION for ${targets[*]}"

# ---- tools ---------------------------------------------------------------------------------
command -v rustup >/dev/null 2>&1 || die "rustup is needed to add the Rust targets"
installed_targets="$(rustup target list --installed)"
for t in "${targets[@]}"; do
  if ! grep -qxF "$t" <<<"$installed_targets"; then
    say "adding the Rust target $t"
    rustup target add "$t"
  fi
done
need_command readelf binutils
need_command musl-gcc musl-tools
# ring compiles C and assembly for the target; musl-gcc is musl's wrapper around gcc.
export CC_x86_64_unknown_linux_musl="${CC_x86_64_unknown_linux_musl:-musl-gcc}"

uses_zig=
for t in "${targets[@]}"; do
  case "$t" in
  aarch64-unknown-linux-musl | *-apple-darwin) uses_zig=1 ;;
  *-windows-gnu) need_command x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64 ;;
  esac
done
export PATH="$TOOLS_DIR/bin:$PATH"
if [ -n "$uses_zig" ]; then
  need_command python3 python3
  if [ "$("$TOOLS_DIR/bin/zig" version 2>/dev/null)" != "$ZIGLANG_VERSION" ]; then
    say "installing zig $ZIGLANG_VERSION (PyPI: ziglang) into $TOOLS_DIR"
    python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
    rm -rf "$TOOLS_DIR/ziglang"
    python3 -m pip install --quiet --disable-pip-version-check --no-deps \
      --target "$TOOLS_DIR/ziglang" "ziglang==$ZIGLANG_VERSION"
    mkdir -p "$TOOLS_DIR/bin"
    ln -sf "$TOOLS_DIR/ziglang/ziglang/zig" "$TOOLS_DIR/bin/zig"
  fi
  if [ "$(cargo-zigbuild --version 2>/dev/null)" != "cargo-zigbuild $CARGO_ZIGBUILD_VERSION" ]; then
    say "installing cargo-zigbuild $CARGO_ZIGBUILD_VERSION from crates.io into $TOOLS_DIR"
    cargo install --locked --quiet --version "$CARGO_ZIGBUILD_VERSION" --root "$TOOLS_DIR" cargo-zigbuild
  fi
fi
if [ "$(cargo-deb --version 2>/dev/null)" != "cargo-deb $CARGO_DEB_VERSION" ]; then
  say "installing cargo-deb $CARGO_DEB_VERSION from crates.io into $TOOLS_DIR"
  cargo install --locked --quiet --version "$CARGO_DEB_VERSION" --root "$TOOLS_DIR" cargo-deb
fi

# ---- binaries ------------------------------------------------------------------------------
for t in "${targets[@]}"; do
  case "$t" in
  aarch64-unknown-linux-musl)
    say "cargo zigbuild --release --target $t"
    cargo zigbuild --release --locked --target "$t"
    ;;
  *-apple-darwin)
    # zig carries link stubs for libSystem but not for libobjc and Foundation, which ctrlc
    # links on macOS (its dispatch2 semaphore, through objc2): scripts/macos-sdk holds the
    # two stubs (see its README). Built for macOS 11 and later: MACOSX_DEPLOYMENT_TARGET,
    # which rustc and (through cargo-zigbuild) zig both follow.
    say "cargo zigbuild --release --target $t (macOS 11 or later)"
    flags_var="CARGO_TARGET_$(tr '[:lower:]-' '[:upper:]_' <<<"$t")_RUSTFLAGS"
    env MACOSX_DEPLOYMENT_TARGET=11.0 \
      "$flags_var=-L native=$ROOT/scripts/macos-sdk/usr/lib -L framework=$ROOT/scripts/macos-sdk/System/Library/Frameworks" \
      cargo zigbuild --release --locked --target "$t"
    ;;
  *)
    say "cargo build --release --target $t"
    cargo build --release --locked --target "$t"
    ;;
  esac
  bin="$(bin_dir "$t")/$(exe_name "$t")"
  [ -s "$bin" ] || die "the build left no $bin"
  # A Linux binary that asks for a dynamic loader or a shared library is not the one we
  # promise (any libc, any distribution).
  case "$t" in
  *-linux-musl)
    if readelf -lW "$bin" | grep -q 'INTERP' || readelf -dW "$bin" | grep -q '(NEEDED)'; then
      die "$bin is not statically linked"
    fi
    ;;
  esac
done

# Generated with an empty environment so that nothing from the builder's shell (a
# PAYVERIFY_* variable, a locale) can end up in a shipped file.
say "generating the man page and completions from the $HOST_TARGET binary"
host_bin="$BIN_DIR/payverify"
rm -rf "$GEN_DIR"
mkdir -p "$GEN_DIR"
env -i "$host_bin" man >"$GEN_DIR/payverify.1"
for shell in "${SHELLS[@]}"; do
  env -i "$host_bin" completions "$shell" >"$GEN_DIR/${COMPLETION_FILE[$shell]}"
done
for f in "$GEN_DIR"/*; do
  [ -s "$f" ] || die "$f is empty"
done
# Debian policy wants man pages gzipped; cargo-deb compresses only files it did not find under
# the target directory, so the page is compressed here (-n: no name or time inside).
gzip -n -9 -c "$GEN_DIR/payverify.1" >"$GEN_DIR/payverify.1.gz"

# ---- archives ------------------------------------------------------------------------------
# Reproducible archives: entries sorted, owned by root, dated by the last commit.
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"
export SOURCE_DATE_EPOCH
rm -rf "$DIST_DIR"
mkdir -p "$DIST_DIR"

# `zip_dir DIR ZIP`: DIR (and its name as the top directory) into ZIP, entries sorted and
# dated SOURCE_DATE_EPOCH, executables marked so. Python's zipfile: no extra package.
zip_dir() {
  python3 - "$1" "$2" <<'PY'
import os, sys, time, zipfile
src, out = sys.argv[1], sys.argv[2]
stamp = time.gmtime(max(int(os.environ["SOURCE_DATE_EPOCH"]), 315532800))[:6]
base = os.path.dirname(src)
paths = []
for root, dirs, files in os.walk(src):
    paths.append(root)
    paths.extend(os.path.join(root, f) for f in files)
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for path in sorted(paths):
        name = os.path.relpath(path, base).replace(os.sep, "/")
        if os.path.isdir(path):
            info = zipfile.ZipInfo(name + "/", stamp)
            info.external_attr = (0o40755 << 16) | 0x10
            z.writestr(info, b"")
        else:
            info = zipfile.ZipInfo(name, stamp)
            info.external_attr = (os.stat(path).st_mode & 0o777 | 0o100000) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            with open(path, "rb") as f:
                z.writestr(info, f.read(), compresslevel=9)
PY
}

for t in "${targets[@]}"; do
  name="$(archive_name "$t")"
  file="$(archive_file "$t")"
  say "writing $file"
  stage="$(bin_dir "$t")/stage"
  rm -rf "$stage"
  top="$stage/$name"
  mkdir -p "$top/complete"
  install -m 644 README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE config.example.toml "$top/"
  # The task pages the README links to, at the same relative path.
  mkdir -p "$top/docs"
  install -m 644 docs/*.md "$top/docs/"
  case "$t" in
  *-windows-*)
    # Windows has no man; PowerShell is its shell (the others' completions are of no use).
    install -m 755 "$(bin_dir "$t")/payverify.exe" "$top/payverify.exe"
    install -m 644 "$GEN_DIR/_payverify.ps1" "$top/complete/"
    zip_dir "$top" "$DIST_DIR/$file"
    ;;
  *)
    install -m 755 "$(bin_dir "$t")/payverify" "$top/payverify"
    mkdir -p "$top/doc"
    install -m 644 "$GEN_DIR/payverify.1" "$top/doc/"
    for shell in "${SHELLS[@]}"; do
      install -m 644 "$GEN_DIR/${COMPLETION_FILE[$shell]}" "$top/complete/"
    done
    tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
      -C "$stage" -cf - "$name" | gzip -n -9 >"$DIST_DIR/$file"
    ;;
  esac
done

for t in "${targets[@]}"; do
  [ -n "$(deb_arch "$t")" ] || continue
  deb="$(deb_file "$t")"
  say "writing $deb"
  # cargo-deb reads the man page and completions from <target>/release/gen.
  if [ "$t" != "$HOST_TARGET" ]; then
    rm -rf "$(bin_dir "$t")/gen"
    cp -R "$GEN_DIR" "$(bin_dir "$t")/gen"
  fi
  # --no-build: package exactly the binary checked above; --no-strip: the release profile
  # already strips it (and the host's strip cannot read an arm64 binary).
  cargo deb --no-build --no-strip --target "$t" --output "$DIST_DIR/$deb"
done

# ---- checksums, formula, manifest ----------------------------------------------------------
(
  cd "$DIST_DIR"
  : >SHA256SUMS
  # LC_ALL=C: the same order whatever the builder's locale.
  for f in $(LC_ALL=C find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%f\n' | LC_ALL=C sort); do
    sha256sum "$f" >"$f.sha256"
    cat "$f.sha256" >>SHA256SUMS
  done
)
# The checksum of a file in dist/, as SHA256SUMS lists it.
sum_of() { awk -v f="$1" '$2 == f {print $1}' "$DIST_DIR/SHA256SUMS"; }
have() { [ -n "$(sum_of "$1")" ]; }

mac_intel="$(archive_file x86_64-apple-darwin)"
mac_arm="$(archive_file aarch64-apple-darwin)"
linux_intel="$(archive_file x86_64-unknown-linux-musl)"
linux_arm="$(archive_file aarch64-unknown-linux-musl)"
if have "$mac_intel" && have "$mac_arm" && have "$linux_intel" && have "$linux_arm"; then
  say "writing payverify.rb (Homebrew formula)"
  cat >"$DIST_DIR/payverify.rb" <<EOF
# Generated by scripts/release.sh from dist/SHA256SUMS; publish it in a tap as Formula/payverify.rb.
class Payverify < Formula
  desc "Verify payment transactions against a gateway's Verify Transaction API"
  homepage "${RELEASE_BASE_URL%/releases/download/*}"
  version "$VERSION"
  license any_of: ["MIT", "Apache-2.0"]

  on_macos do
    on_arm do
      url "$RELEASE_BASE_URL/$mac_arm"
      sha256 "$(sum_of "$mac_arm")"
    end
    on_intel do
      url "$RELEASE_BASE_URL/$mac_intel"
      sha256 "$(sum_of "$mac_intel")"
    end
  end

  on_linux do
    on_arm do
      url "$RELEASE_BASE_URL/$linux_arm"
      sha256 "$(sum_of "$linux_arm")"
    end
    on_intel do
      url "$RELEASE_BASE_URL/$linux_intel"
      sha256 "$(sum_of "$linux_intel")"
    end
  end

  def install
    bin.install "payverify"
    man1.install "doc/payverify.1"
    bash_completion.install "complete/payverify.bash" => "payverify"
    zsh_completion.install "complete/_payverify"
    fish_completion.install "complete/payverify.fish"
    doc.install "README.md", "CHANGELOG.md", "config.example.toml", "docs"
  end

  test do
    assert_equal "payverify #{version}", shell_output("#{bin}/payverify --version").strip
    assert_match "SUCCESSFUL", shell_output("#{bin}/payverify verify --sandbox 0000000000000044177")
    shell_output("#{bin}/payverify verify --sandbox -q SANDBOX-FAILED-1", 1)
  end
end
EOF
fi

windows="$(archive_file x86_64-pc-windows-gnu)"
if have "$windows"; then
  say "writing payverify.json (Scoop manifest)"
  python3 - "$DIST_DIR/payverify.json" <<EOF
import json, sys
manifest = {
    "version": "$VERSION",
    "description": "$(sed -n 's/^description = "\(.*\)"$/\1/p' Cargo.toml)",
    "homepage": "${RELEASE_BASE_URL%/releases/download/*}",
    "license": "MIT|Apache-2.0",
    "architecture": {
        "64bit": {
            "url": "$RELEASE_BASE_URL/$windows",
            "hash": "$(sum_of "$windows")",
            "extract_dir": "$(archive_name x86_64-pc-windows-gnu)",
        }
    },
    "bin": "payverify.exe",
    "notes": "PowerShell completion: add '. \$dir\\\\complete\\\\_payverify.ps1' to \$PROFILE",
}
with open(sys.argv[1], "w", newline="\n") as f:
    json.dump(manifest, f, indent=4)
    f.write("\n")
EOF
fi

say "done:"
ls -l "$DIST_DIR" >&2
