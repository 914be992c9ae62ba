#!/usr/bin/env bash
# Builds the release artefacts (scripts/release.sh) and checks them the way a user meets them:
# the .deb unpacked into a throwaway root and the tarball unpacked into another, each binary
# run, each man page rendered, each bash completion sourced and asked for completions. Also
# checks that `cargo package` ships only what the crate needs and still builds.
#
# Usage: scripts/check-release.sh   (.ci/run runs it; about 5.5 min from a bare machine on 2
#                                   loaded cores, most of it the musl build and cargo-deb)
# Installs what is missing: man-db, bash-completion and file (apt), plus whatever
# scripts/release.sh installs. Exits non-zero, naming the failed check, on any failure.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passes=0
failures=0
pass() {
  printf 'ok   %s\n' "$*"
  passes=$((passes + 1))
}
fail() {
  printf 'FAIL %s\n' "$*"
  failures=$((failures + 1))
}
# `check DESCRIPTION COMMAND...`: runs the command quietly and records pass or fail, showing
# the end of its output when it fails.
check() {
  local what="$1"
  shift
  if "$@" >"$work/check.out" 2>&1; then
    pass "$what"
  else
    fail "$what"
    tail -n 20 "$work/check.out" | sed 's/^/     | /'
  fi
}

need_command dpkg-deb dpkg
need_command file file
need_command man man-db
need_file /usr/share/bash-completion/bash_completion bash-completion

# A value the builder's environment holds must never end up inside a shipped file.
SENTINEL="release-check-sentinel-$$"
say "scripts/release.sh"
PAYVERIFY_CLIENT_ID="$SENTINEL" PAYVERIFY_BASE_URL="https://$SENTINEL.invalid" \
  bash "$ROOT/scripts/release.sh"

tarball="$DIST_DIR/$TARBALL_NAME.tar.gz"
deb="$DIST_DIR/$DEB_NAME"

# Helpers for `check`: each succeeds or fails, quietly.
not() { ! "$@"; }
# `has_lines FILE LINE...`: every LINE is a whole line of FILE.
has_lines() {
  local file="$1" line
  shift
  for line in "$@"; do grep -qxF -- "$line" "$file" || return 1; done
}
# `contains_all TEXT STRING...`: every STRING occurs in TEXT.
contains_all() {
  local text="$1" string
  shift
  for string in "$@"; do grep -qF -- "$string" <<<"$text" || return 1; done
}
# Checked where a user would check it: beside the file, as the README says.
sha256_verifies() { (cd "$DIST_DIR" && sha256sum -c "$1"); }
no_loader_no_needed() {
  ! readelf -lW "$1" | grep -q INTERP && ! readelf -dW "$1" | grep -q NEEDED
}

# The binary as a user gets it: static, the right version, and working with nothing around it
# (an empty environment, as under a minimal cron).
check_binary() {
  local bin="$1" label="$2" out
  out="$(file -b "$bin")"
  printf '     file: %s\n' "$out"
  # Rust links musl binaries as static-pie (static, and still address-randomised); `file`
  # calls that "static-pie linked", an older `file` "statically linked".
  check "$label: file says static" grep -Eq 'static-pie linked|statically linked' <<<"$out"
  out="$(ldd "$bin" 2>&1 || true)"
  printf '     ldd: %s\n' "$(tr -s ' \t\n' ' ' <<<"$out")"
  check "$label: ldd finds no shared library" grep -Eq 'not a dynamic executable|statically linked' <<<"$out"
  check "$label: no program interpreter, no NEEDED entry" \
    no_loader_no_needed "$bin"
  out="$(env -i "$bin" --version 2>&1 || true)"
  check "$label: --version says 'payverify $VERSION' ($out)" test "$out" = "payverify $VERSION"
  local status=0
  out="$(env -i "$bin" verify --sandbox 0000000000000044177 2>"$work/stderr")" || status=$?
  check "$label: verify --sandbox 0000000000000044177 exits 0" test "$status" -eq 0
  check "$label: ...and prints SUCCESSFUL, ₦40,000.00, hmac valid" \
    contains_all "$out" SUCCESSFUL "₦40,000.00" "hmac valid"
  check "$label: ...with nothing on stderr" test ! -s "$work/stderr"
  status=0
  env -i "$bin" verify --sandbox -q SANDBOX-FAILED-release-check || status=$?
  check "$label: verify --sandbox SANDBOX-FAILED-... exits 1" test "$status" -eq 1
}

# The man page renders without a troff warning and is the one this binary generates.
check_man() {
  local page="$1" bin="$2" label="$3"
  local text="$work/man.txt"
  MANWIDTH=80 man --warnings -l "$page" >"$text" 2>"$work/man.err" || true
  check "$label: man -l renders with no warning" test ! -s "$work/man.err"
  check "$label: ...the NAME, SYNOPSIS and EXIT STATUS sections" \
    has_lines "$text" NAME SYNOPSIS "EXIT STATUS"
  printf '     %s\n' "$(head -1 "$text")"
  local source="$page"
  if [[ "$page" == *.gz ]]; then
    gzip -dc "$page" >"$work/page.1"
    source="$work/page.1"
  fi
  check "$label: the page is what its binary's 'payverify man' prints" cmp -s "$source" <(env -i "$bin" man)
}

# Sources the bash completion after bash-completion itself, as an interactive shell would, and
# prints what it offers for the words given.
complete_words() {
  local script="$1"
  shift
  bash --norc --noprofile -c '
    source /usr/share/bash-completion/bash_completion
    source "$1"
    shift
    fn="$(complete -p payverify | sed -n "s/.*-F \([^ ]*\) .*/\1/p")"
    [ -n "$fn" ] || exit 3
    COMP_WORDS=("$@")
    COMP_CWORD=$(($# - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    "$fn" payverify "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"
  ' _ "$script" "$@"
}

check_bash_completion() {
  local script="$1" label="$2"
  check "$label: bash completion offers 'verify' for 'payverify ver'" \
    grep -qx verify <(complete_words "$script" payverify ver)
  complete_words "$script" payverify completions '' >"$work/offers" || true
  check "$label: ...and the five shells for 'payverify completions '" \
    has_lines "$work/offers" bash elvish fish powershell zsh
  check "$label: ...and --expect-amount for 'payverify verify --expect-am'" \
    grep -q -- --expect-amount <(complete_words "$script" payverify verify --expect-am)
}

# Every completion script is the one this binary generates for its shell.
check_completions_match() {
  local bin="$1" label="$2"
  shift 2
  local shell file
  for shell in "$@"; do
    file="${shell#*=}"
    shell="${shell%%=*}"
    check "$label: ${file#"$work"/} is what 'payverify completions $shell' prints" \
      cmp -s "$file" <(env -i "$bin" completions "$shell")
  done
}

say "checksums"
check "$TARBALL_NAME.tar.gz.sha256 verifies" sha256_verifies "$TARBALL_NAME.tar.gz.sha256"
check "$DEB_NAME.sha256 verifies" sha256_verifies "$DEB_NAME.sha256"
printf '     sizes: %s\n' "$(cd "$DIST_DIR" && stat -c '%n %s bytes' "$TARBALL_NAME.tar.gz" "$DEB_NAME" | tr '\n' ';')"

say "the Debian package: dpkg-deb -c"
dpkg-deb -c "$deb" | tee "$work/deb.list"
awk '$1 !~ /^d/ {print $6}' "$work/deb.list" | sort >"$work/deb.files"
sort >"$work/deb.expected" <<'EOF'
./usr/bin/payverify
./usr/share/bash-completion/completions/payverify
./usr/share/doc/payverify/CHANGELOG.md
./usr/share/doc/payverify/LICENSE-APACHE
./usr/share/doc/payverify/LICENSE-MIT
./usr/share/doc/payverify/README.md
./usr/share/doc/payverify/config.example.toml
./usr/share/doc/payverify/copyright
./usr/share/fish/vendor_completions.d/payverify.fish
./usr/share/man/man1/payverify.1.gz
./usr/share/zsh/vendor-completions/_payverify
EOF
if cmp -s "$work/deb.files" "$work/deb.expected"; then
  pass "deb: holds exactly the expected files"
else
  fail "deb: holds exactly the expected files"
  diff "$work/deb.expected" "$work/deb.files" || true
fi
check "deb: /usr/bin/payverify is mode 755, owned by root" \
  grep -Eq '^-rwxr-xr-x 0/0 .* \./usr/bin/payverify$' "$work/deb.list"
dpkg-deb -f "$deb" >"$work/control"
check "deb: Package payverify, Version $VERSION-1, Architecture amd64" \
  has_lines "$work/control" "Package: payverify" "Version: $VERSION-1" "Architecture: amd64"
check "deb: depends on no other package (the binary is static)" \
  not grep -Eq '^(Pre-)?Depends: *[^ ]' "$work/control"

say "the Debian package: dpkg -x into a throwaway root"
root="$work/deb-root"
dpkg -x "$deb" "$root"
bin="$root/usr/bin/payverify"
check_binary "$bin" "deb"
check_man "$root/usr/share/man/man1/payverify.1.gz" "$bin" "deb"
check_bash_completion "$root/usr/share/bash-completion/completions/payverify" "deb"
check_completions_match "$bin" "deb" \
  "bash=$root/usr/share/bash-completion/completions/payverify" \
  "zsh=$root/usr/share/zsh/vendor-completions/_payverify" \
  "fish=$root/usr/share/fish/vendor_completions.d/payverify.fish"
for doc in README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE config.example.toml; do
  check "deb: /usr/share/doc/payverify/$doc is the repository's" cmp -s "$root/usr/share/doc/payverify/$doc" "$ROOT/$doc"
done

say "the tarball"
check "tarball: gzip and tar read it without an error" tar -tzf "$tarball"
# Whatever fails to unpack shows up in the checks below, so the run goes on to report them.
{ tar -tzf "$tarball" 2>/dev/null || true; } | sort >"$work/tar.files"
sort >"$work/tar.expected" <<EOF
$TARBALL_NAME/
$TARBALL_NAME/CHANGELOG.md
$TARBALL_NAME/LICENSE-APACHE
$TARBALL_NAME/LICENSE-MIT
$TARBALL_NAME/README.md
$TARBALL_NAME/complete/
$TARBALL_NAME/complete/_payverify
$TARBALL_NAME/complete/_payverify.ps1
$TARBALL_NAME/complete/payverify.bash
$TARBALL_NAME/complete/payverify.elv
$TARBALL_NAME/complete/payverify.fish
$TARBALL_NAME/config.example.toml
$TARBALL_NAME/doc/
$TARBALL_NAME/doc/payverify.1
$TARBALL_NAME/payverify
EOF
if cmp -s "$work/tar.files" "$work/tar.expected"; then
  pass "tarball: holds exactly the expected files"
else
  fail "tarball: holds exactly the expected files"
  diff "$work/tar.expected" "$work/tar.files" || true
fi
mkdir "$work/tar-root"
tar -xzf "$tarball" -C "$work/tar-root" 2>/dev/null || true
top="$work/tar-root/$TARBALL_NAME"
check_binary "$top/payverify" "tarball"
check_man "$top/doc/payverify.1" "$top/payverify" "tarball"
check_bash_completion "$top/complete/payverify.bash" "tarball"
completions=()
for shell in "${SHELLS[@]}"; do
  completions+=("$shell=$top/complete/${COMPLETION_FILE[$shell]}")
done
check_completions_match "$top/payverify" "tarball" "${completions[@]}"
check "the .deb and the tarball ship the same binary" cmp -s "$bin" "$top/payverify"
check "no file in either artefact holds a value from the builder's environment" \
  not grep -rqF "$SENTINEL" "$root" "$top"

say "cargo package"
cargo package --locked --allow-dirty --list 2>/dev/null | tee "$work/package.list" | sed 's/^/     /'
check "cargo package --list: licences, changelog, README, sources" has_lines "$work/package.list" \
  LICENSE-MIT LICENSE-APACHE CHANGELOG.md README.md Cargo.lock src/main.rs
check "cargo package --list: no fuzz/, benches/, scripts/, .ci/, target/ or dist/" \
  not grep -Eq '^(fuzz|benches|scripts|\.ci|target|dist)/' "$work/package.list"
check "cargo package --locked builds the packaged crate" cargo package --locked --allow-dirty

say "finished in $(($(date +%s) - RELEASE_STARTED)) s"
# The plain tally line CI logs are read for.
printf 'release-check: %d passed, %d failed\n' "$passes" "$failures"
if [ "$failures" -ne 0 ]; then
  exit 1
fi
