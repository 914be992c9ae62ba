#!/usr/bin/env bash
# Builds the release artefacts (scripts/release.sh) and checks them the way a user meets them:
# each .deb unpacked into a throwaway root and each archive into another, each binary run,
# each man page rendered, each bash completion sourced and asked for completions. Also checks
# that `cargo package` ships only what the crate needs and still builds.
#
# Usage: scripts/check-release.sh        the x86_64 Linux tarball and .deb (.ci/run runs this;
#                                        about 5.5 min from a bare machine on 2 loaded cores,
#                                        most of it the musl build and cargo-deb)
#        scripts/check-release.sh --all  every artefact of scripts/release.sh: also builds the
#                                        arm64 Linux, Windows and macOS ones, runs the arm64
#                                        binaries under qemu-aarch64-static and the Windows one
#                                        under wine64 (sandbox, a config file with a secret file,
#                                        doctor, a closed stdout, a loose secret file, and the
#                                        library's unit tests), checks the macOS binaries
#                                        (Mach-O, architecture, only system libraries linked),
#                                        SHA256SUMS, the Homebrew formula and the Scoop manifest
# Installs what is missing: man-db, bash-completion and file (apt), plus whatever
# scripts/release.sh installs; with --all also qemu-user-static, wine64, mingw-w64 (apt) and
# the llvm-tools rustup component. Exits non-zero, naming the failed check, on any failure.
#
# Test-only helpers for wine, built here with mingw and never shipped (scripts/wine/):
# bcryptprimitives.dll answers ProcessPrng, which Rust's std needs at start-up and Debian's
# wine 8 lacks; nostdout.exe starts a program with no stdout handle at all.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"

all=
case "${1:-}" in
"") ;;
--all) all=1 ;;
-h | --help)
  sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 0
  ;;
*) die "unknown argument $1 (see --help)" ;;
esac

work="$(mktemp -d)"
# The home every check runs in: the default journal a release binary keeps goes there, not
# into the tester's own.
mkdir -p "$work/home"
sandbox_pid=
cleanup() {
  [ -z "$sandbox_pid" ] || kill "$sandbox_pid" 2>/dev/null || true
  # Only this run's own wine prefix: its wineserver and whatever it still runs.
  if [ -d "$work/wine" ]; then WINEPREFIX="$work/wine" "$WINESERVER" -k 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
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
QEMU=qemu-aarch64-static
WINE=/usr/lib/wine/wine64
WINESERVER=/usr/lib/wine/wineserver64
if [ -n "$all" ]; then
  need_command "$QEMU" qemu-user-static
  need_file "$WINE" wine64
  need_command x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64
  need_command python3 python3
fi

# A value the builder's environment holds must never end up inside a shipped file.
SENTINEL="release-check-sentinel-$$"
say "scripts/release.sh"
targets=("$HOST_TARGET")
release_args=(--target "$HOST_TARGET")
if [ -n "$all" ]; then
  targets=("${ALL_TARGETS[@]}")
  release_args=()
fi
PAYVERIFY_CLIENT_ID="$SENTINEL" PAYVERIFY_BASE_URL="https://$SENTINEL.invalid" \
  bash "$ROOT/scripts/release.sh" "${release_args[@]}"

if [ -n "$all" ]; then
  say "test-only wine helpers (scripts/wine/)"
  mkdir -p "$work/wine-helpers" "$work/home"
  x86_64-w64-mingw32-gcc -O2 -s -shared -o "$work/wine-helpers/bcryptprimitives.dll" \
    scripts/wine/processprng.c -ladvapi32
  x86_64-w64-mingw32-gcc -O2 -s -o "$work/wine-helpers/nostdout.exe" scripts/wine/nostdout.c
  # A prefix of this run's own, made before any timed or stderr-checked run (wine's first
  # start in a prefix prints its set-up).
  env -i HOME="$work/home" WINEPREFIX="$work/wine" WINEDEBUG=-all PATH=/usr/bin:/bin \
    "$WINE" cmd /c exit >/dev/null 2>&1 || true
fi

# `run_on TARGET PROGRAM ARGS...`: runs TARGET's PROGRAM here, in an empty environment (as
# under a minimal cron): directly, under qemu-aarch64-static, or under wine64.
run_on() {
  local target="$1"
  shift
  case "$target" in
  aarch64-unknown-linux-musl) env -i HOME="$work/home" "$QEMU" "$@" ;;
  x86_64-pc-windows-gnu)
    env -i HOME="$work/home" WINEPREFIX="$work/wine" WINEDEBUG=-all PATH=/usr/bin:/bin \
      "$WINE" "$@"
    ;;
  *) env -i HOME="$work/home" "$@" ;;
  esac
}

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
# `same_lines FILE EXPECTED`: the same lines in any order, else the difference is shown.
same_lines() {
  diff <(sort "$2") <(sort "$1")
}

# What `file` says each target's binary is.
declare -A FILE_SAYS=(
  [x86_64-unknown-linux-musl]='ELF 64-bit LSB.*x86-64'
  [aarch64-unknown-linux-musl]='ELF 64-bit LSB.*ARM aarch64'
  [x86_64-pc-windows-gnu]='PE32\+ executable \(console\) x86-64'
  [x86_64-apple-darwin]='Mach-O 64-bit x86_64 executable'
  [aarch64-apple-darwin]='Mach-O 64-bit arm64 executable'
)
# `--version` start-up where it runs, for the closing summary.
startups=()

# The binary as a user gets it: the right kind of file, the right version, and working with
# nothing around it (an empty environment).
check_binary() {
  local bin="$1" label="$2" target="$3" out
  out="$(file -b "$bin")"
  printf '     file: %s\n' "$out"
  check "$label: file says ${FILE_SAYS[$target]}" grep -Eq "${FILE_SAYS[$target]}" <<<"$out"
  case "$target" in
  *-linux-musl)
    # Rust links musl binaries as static-pie (static, and still address-randomised); `file`
    # calls that "static-pie linked", an older `file` "statically linked".
    check "$label: file says static" grep -Eq 'static-pie linked|statically linked' <<<"$out"
    check "$label: no program interpreter, no NEEDED entry" no_loader_no_needed "$bin"
    ;;
  esac
  if [ "$target" = "$HOST_TARGET" ]; then
    out="$(ldd "$bin" 2>&1 || true)"
    printf '     ldd: %s\n' "$(tr -s ' \t\n' ' ' <<<"$out")"
    check "$label: ldd finds no shared library" grep -Eq 'not a dynamic executable|statically linked' <<<"$out"
  fi
  local started ended
  started="$(date +%s%N)"
  out="$(run_on "$target" "$bin" --version 2>&1 || true)"
  ended="$(date +%s%N)"
  startups+=("$label $(((ended - started) / 1000000)) ms")
  check "$label: --version says 'payverify $VERSION' ($out)" test "$out" = "payverify $VERSION"
  local status=0
  out="$(run_on "$target" "$bin" verify --sandbox 0000000000000044177 2>"$work/stderr")" || status=$?
  check "$label: verify --sandbox 0000000000000044177 exits 0" test "$status" -eq 0
  check "$label: ...and prints SUCCESSFUL, ₦40,000.00, hmac valid" \
    contains_all "$out" SUCCESSFUL "₦40,000.00" "hmac valid"
  check "$label: ...with nothing on stderr" test ! -s "$work/stderr"
  status=0
  run_on "$target" "$bin" verify --sandbox -q SANDBOX-FAILED-release-check || status=$?
  check "$label: verify --sandbox SANDBOX-FAILED-... exits 1" test "$status" -eq 1
  check_no_test_knobs "$bin" "$label" "$target"
}

# The tests' knobs (PAYVERIFY_DEBUG_PANIC_ON, PAYVERIFY_DEBUG_SECRET_COMMAND_TIMEOUT_MS) are
# read by debug builds only: a release binary holds none of their names, and where it runs
# here, setting them changes nothing (a debug build exits 10 and 6 on these two runs: a
# panic injected into the worker, a secret command stopped after 1 ms; release runs exit 0,
# and 7 once the command's secret is used against a closed port).
check_no_test_knobs() {
  local bin="$1" label="$2" target="$3" dir="$work/knobs-$3" status
  check "$label: holds no PAYVERIFY_DEBUG_ test knob" not grep -aq PAYVERIFY_DEBUG_ "$bin"
  [ "$target" = "$HOST_TARGET" ] || return 0
  status=0
  env -i HOME="$work/home" PAYVERIFY_DEBUG_PANIC_ON=SANDBOX-OK-knob "$bin" verify --sandbox -q SANDBOX-OK-knob \
    2>/dev/null || status=$?
  check "$label: ...PAYVERIFY_DEBUG_PANIC_ON changes nothing (exit $status, want 0)" \
    test "$status" -eq 0
  mkdir -p "$dir"
  printf '[profiles.k]\nbase_url = "http://127.0.0.1:9"\nclient_id = "knob"\n%s\n' \
    'client_secret_command = ["/bin/sh", "-c", "sleep 1; echo knob-secret-0123456789"]' \
    >"$dir/config.toml"
  chmod 600 "$dir/config.toml"
  status=0
  env -i HOME="$work/home" PAYVERIFY_DEBUG_SECRET_COMMAND_TIMEOUT_MS=1 "$bin" --config "$dir/config.toml" \
    --profile k verify --retries 0 -q 0000000000000044177 2>/dev/null || status=$?
  check "$label: ...PAYVERIFY_DEBUG_SECRET_COMMAND_TIMEOUT_MS changes nothing (exit $status, want 7)" \
    test "$status" -eq 7
}

# The man page renders without a troff warning and is the one its binary generates.
check_man() {
  local page="$1" bin="$2" label="$3" target="$4"
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
  run_on "$target" "$bin" man >"$work/own.1" 2>/dev/null || true
  check "$label: the page is what its binary's 'payverify man' prints" cmp -s "$source" "$work/own.1"
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

# Every completion script is the one its binary generates for its shell:
# `check_completions_match BIN LABEL TARGET SHELL=FILE...`.
check_completions_match() {
  local bin="$1" label="$2" target="$3"
  shift 3
  local shell file
  for shell in "$@"; do
    file="${shell#*=}"
    shell="${shell%%=*}"
    run_on "$target" "$bin" completions "$shell" >"$work/own.completion" 2>/dev/null || true
    check "$label: ${file#"$work"/} is what 'payverify completions $shell' prints" \
      cmp -s "$file" "$work/own.completion"
  done
}

# A path as TARGET's binary sees it (wine shows the root as drive Z:).
native_path() {
  case "$1" in
  *-windows-*) printf 'Z:%s' "${2//\//\\}" ;;
  *) printf '%s' "$2" ;;
  esac
}

# The config check's server: the host binary's sandbox on a free loopback port.
sandbox_url=
start_sandbox() {
  "$BIN_DIR/payverify" sandbox --port 0 >"$work/sandbox.out" 2>/dev/null &
  sandbox_pid=$!
  local i
  for i in $(seq 200); do
    sandbox_url="$(head -1 "$work/sandbox.out" 2>/dev/null || true)"
    [ -z "$sandbox_url" ] || return 0
    sleep 0.1
  done
  die "the sandbox did not start (after $i tries)"
}

# Helpers for check_config_run's checks.
ok_table() { contains_all "$1" SUCCESSFUL "hmac valid" && test ! -s "$work/stderr"; }
doctor_ok() {
  grep -Eq '^credentials +ok' <<<"$1" && grep -Eq '^reference +ok' <<<"$1" &&
    grep -Eq '^hmac +ok' <<<"$1"
}
list_ok() { contains_all "$1" SANDBOX-OK-1 0000000000000044177 && ! grep -q $'\r' <<<"$1"; }

# A config file naming a secret file, both with CRLF line ends as a Windows editor saves them,
# against the sandbox on loopback: verify and doctor exit 0, a failed payment 1, a secret file
# others can read is warned about (its mode on Unix, the access list wine derives from the mode
# on Windows), and a CRLF list of references reads cleanly.
check_config_run() {
  local bin="$1" label="$2" target="$3" dir="$work/config-$3" out status config
  mkdir -p "$dir"
  printf 'sandbox-secret\r\n' >"$dir/secret"
  chmod 600 "$dir/secret"
  printf '[profiles.sb]\r\nbase_url = "%s"\r\nclient_id = "sandbox"\r\nclient_secret_file = %s\r\n' \
    "$sandbox_url" "'$(native_path "$target" "$dir/secret")'" >"$dir/config.toml"
  config="$(native_path "$target" "$dir/config.toml")"
  status=0
  out="$(run_on "$target" "$bin" --config "$config" --profile sb verify 0000000000000044177 2>"$work/stderr")" || status=$?
  check "$label: verify with a config file and a secret file (CRLF) exits 0" test "$status" -eq 0
  check "$label: ...prints SUCCESSFUL and hmac valid, nothing on stderr" ok_table "$out"
  status=0
  run_on "$target" "$bin" --config "$config" --profile sb verify -q SANDBOX-FAILED-1 2>/dev/null || status=$?
  check "$label: ...and SANDBOX-FAILED-1 through it exits 1" test "$status" -eq 1
  status=0
  out="$(run_on "$target" "$bin" --config "$config" --profile sb doctor 0000000000000044177 2>&1)" || status=$?
  check "$label: doctor with that config and the sample reference exits 0" test "$status" -eq 0
  check "$label: ...its credentials, reference and hmac checks are ok" doctor_ok "$out"
  chmod 644 "$dir/secret"
  run_on "$target" "$bin" --config "$config" --profile sb verify 0000000000000044177 \
    >/dev/null 2>"$work/stderr" || true
  check "$label: a secret file others can read is warned about" \
    grep -q 'holds a client secret and is readable by' "$work/stderr"
  check "$label: ...and the warning never shows the secret" not grep -q 'sandbox-secret' "$work/stderr"
  printf 'SANDBOX-OK-1\r\n0000000000000044177\r\n' >"$dir/list.txt"
  status=0
  out="$(run_on "$target" "$bin" verify --sandbox -o csv --from "$(native_path "$target" "$dir/list.txt")" 2>/dev/null)" || status=$?
  check "$label: verify --from a CRLF list exits 0" test "$status" -eq 0
  check "$label: ...with both references and no CR in them" list_ok "$out"
}

# An archive's file list: `archive_list FILE`.
archive_list() {
  case "$1" in
  *.zip) python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$1" ;;
  *) tar -tzf "$1" ;;
  esac
}

# The task pages every artefact ships beside README.md: docs/*.md of the sources, so a page
# added there is expected in each artefact without a change here.
doc_pages() {
  (cd "$ROOT" && LC_ALL=C ls docs/*.md)
}

# What a Unix tarball holds: `unix_archive_files NAME`.
unix_archive_files() {
  local n="$1" page
  printf '%s\n' "$n/" "$n/CHANGELOG.md" "$n/LICENSE-APACHE" "$n/LICENSE-MIT" "$n/README.md" \
    "$n/complete/" "$n/complete/_payverify" "$n/complete/_payverify.ps1" \
    "$n/complete/payverify.bash" "$n/complete/payverify.elv" "$n/complete/payverify.fish" \
    "$n/config.example.toml" "$n/doc/" "$n/doc/payverify.1" "$n/docs/" "$n/payverify"
  for page in $(doc_pages); do printf '%s\n' "$n/$page"; done
}

# A Linux target's .deb and tarball, unpacked and run.
check_linux() {
  local target="$1" arch name deb tarball
  arch="$(deb_arch "$target")"
  deb="$DIST_DIR/$(deb_file "$target")"
  name="$(archive_name "$target")"
  tarball="$DIST_DIR/$(archive_file "$target")"

  say "$target: the Debian package: dpkg-deb -c"
  dpkg-deb -c "$deb" | tee "$work/deb.list"
  awk '$1 !~ /^d/ {print $6}' "$work/deb.list" >"$work/deb.files"
  printf '%s\n' ./usr/bin/payverify \
    ./usr/share/bash-completion/completions/payverify \
    ./usr/share/doc/payverify/CHANGELOG.md ./usr/share/doc/payverify/LICENSE-APACHE \
    ./usr/share/doc/payverify/LICENSE-MIT ./usr/share/doc/payverify/README.md \
    ./usr/share/doc/payverify/config.example.toml ./usr/share/doc/payverify/copyright \
    ./usr/share/fish/vendor_completions.d/payverify.fish \
    ./usr/share/man/man1/payverify.1.gz ./usr/share/zsh/vendor-completions/_payverify \
    $(doc_pages | sed 's|^|./usr/share/doc/payverify/|') \
    >"$work/deb.expected"
  check "deb $arch: holds exactly the expected files" same_lines "$work/deb.files" "$work/deb.expected"
  check "deb $arch: /usr/bin/payverify is mode 755, owned by root" \
    grep -Eq '^-rwxr-xr-x 0/0 .* \./usr/bin/payverify$' "$work/deb.list"
  dpkg-deb -f "$deb" >"$work/control"
  check "deb $arch: Package payverify, Version $VERSION-1, Architecture $arch" \
    has_lines "$work/control" "Package: payverify" "Version: $VERSION-1" "Architecture: $arch"
  check "deb $arch: depends on no other package (the binary is static)" \
    not grep -Eq '^(Pre-)?Depends: *[^ ]' "$work/control"

  say "$target: the Debian package: dpkg -x into a throwaway root"
  local root="$work/deb-root-$arch"
  dpkg -x "$deb" "$root"
  local bin="$root/usr/bin/payverify"
  check_binary "$bin" "deb $arch" "$target"
  check_man "$root/usr/share/man/man1/payverify.1.gz" "$bin" "deb $arch" "$target"
  check_bash_completion "$root/usr/share/bash-completion/completions/payverify" "deb $arch"
  check_completions_match "$bin" "deb $arch" "$target" \
    "bash=$root/usr/share/bash-completion/completions/payverify" \
    "zsh=$root/usr/share/zsh/vendor-completions/_payverify" \
    "fish=$root/usr/share/fish/vendor_completions.d/payverify.fish"
  local doc
  for doc in README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE config.example.toml $(doc_pages); do
    check "deb $arch: /usr/share/doc/payverify/$doc is the repository's" \
      cmp -s "$root/usr/share/doc/payverify/$doc" "$ROOT/$doc"
  done

  say "$target: the tarball"
  check "tarball $arch: gzip and tar read it without an error" tar -tzf "$tarball"
  # Whatever fails to unpack shows up in the checks below, so the run goes on to report them.
  { archive_list "$tarball" 2>/dev/null || true; } >"$work/tar.files"
  unix_archive_files "$name" >"$work/tar.expected"
  check "tarball $arch: holds exactly the expected files" same_lines "$work/tar.files" "$work/tar.expected"
  mkdir -p "$work/tar-root-$arch"
  tar -xzf "$tarball" -C "$work/tar-root-$arch" 2>/dev/null || true
  local top="$work/tar-root-$arch/$name"
  check_binary "$top/payverify" "tarball $arch" "$target"
  check_man "$top/doc/payverify.1" "$top/payverify" "tarball $arch" "$target"
  check_bash_completion "$top/complete/payverify.bash" "tarball $arch"
  local completions=() shell
  for shell in "${SHELLS[@]}"; do
    completions+=("$shell=$top/complete/${COMPLETION_FILE[$shell]}")
  done
  check_completions_match "$top/payverify" "tarball $arch" "$target" "${completions[@]}"
  check "the $arch .deb and tarball ship the same binary" cmp -s "$bin" "$top/payverify"
  check "no file in the $arch artefacts holds a value from the builder's environment" \
    not grep -rqF "$SENTINEL" "$root" "$top"
  [ -z "$all" ] || check_config_run "$top/payverify" "tarball $arch" "$target"
}

# The Windows zip, unpacked and run under wine.
check_windows() {
  local target=x86_64-pc-windows-gnu name zip top exe out status
  name="$(archive_name "$target")"
  zip="$DIST_DIR/$(archive_file "$target")"
  say "$target: the zip"
  archive_list "$zip" >"$work/zip.files"
  {
    printf '%s\n' "$name/" "$name/CHANGELOG.md" "$name/LICENSE-APACHE" "$name/LICENSE-MIT" \
      "$name/README.md" "$name/complete/" "$name/complete/_payverify.ps1" \
      "$name/config.example.toml" "$name/docs/" "$name/payverify.exe"
    doc_pages | sed "s|^|$name/|"
  } >"$work/zip.expected"
  check "windows: the zip holds exactly the expected files" same_lines "$work/zip.files" "$work/zip.expected"
  mkdir -p "$work/zip-root"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$zip" "$work/zip-root"
  top="$work/zip-root/$name"
  exe="$top/payverify.exe"
  # Only DLLs every Windows 10 has: no mingw runtime (libgcc_s, libwinpthread) to ship.
  x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^[[:space:]]*DLL Name: //p' |
    tr '[:upper:]' '[:lower:]' | sort -u >"$work/dlls"
  printf '     DLLs: %s\n' "$(tr '\n' ' ' <"$work/dlls")"
  check "windows: payverify.exe imports only system DLLs" not grep -Evx \
    'kernel32\.dll|ntdll\.dll|advapi32\.dll|bcrypt\.dll|bcryptprimitives\.dll|ws2_32\.dll|userenv\.dll|msvcrt\.dll|api-ms-win-[a-z0-9-]+\.dll|secur32\.dll|shell32\.dll|ole32\.dll|oleaut32\.dll|user32\.dll' \
    "$work/dlls"
  # The test-only shim goes beside the exe in the unpacked copy (the zip was listed above).
  cp "$work/wine-helpers/bcryptprimitives.dll" "$top/"
  check_binary "$exe" "windows" "$target"
  check_completions_match "$exe" "windows" "$target" "powershell=$top/complete/_payverify.ps1"
  local doc
  for doc in README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE config.example.toml $(doc_pages); do
    check "windows: $doc is the repository's" cmp -s "$top/$doc" "$ROOT/$doc"
  done
  check "windows: no file in the zip holds a value from the builder's environment" \
    not grep -rqF "$SENTINEL" "$top"
  check_config_run "$exe" "windows" "$target"
  status=0
  (cd "$top" && run_on "$target" "$work/wine-helpers/nostdout.exe" payverify.exe verify --sandbox \
    0000000000000044177) >/dev/null 2>"$work/stderr" || status=$?
  check "windows: with no stdout handle, verify exits 10 rather than lose the table silently" \
    test "$status" -eq 10
  check "windows: ...and says so on stderr" grep -q 'stdout is closed' "$work/stderr"
  # `--resume FILE > FILE` as cmd runs it: refused (exit 2), not resumed from the file the
  # shell has just emptied.
  run_on "$target" "$exe" verify --sandbox -o jsonl SANDBOX-OK-1 SANDBOX-OK-2 \
    >"$top/run1.jsonl" 2>/dev/null || true
  status=0
  (cd "$top" && run_on "$target" cmd /c \
    "payverify.exe verify --sandbox -o jsonl --resume run1.jsonl SANDBOX-OK-1 SANDBOX-OK-2 > run1.jsonl") \
    2>"$work/stderr" || status=$?
  check "windows: --resume run1.jsonl > run1.jsonl in cmd exits 2" test "$status" -eq 2
  check "windows: ...saying the file is also the output" grep -q 'is also where this run' "$work/stderr"
  # The same for an output file named as one the run reads (the shell is not involved):
  # outputs never replace inputs, files told apart by volume and file index.
  printf 'reference,amount\r\nSANDBOX-OK-1,40000\r\n' >"$top/orders.csv"
  status=0
  (cd "$top" && run_on "$target" "$exe" reconcile --sandbox orders.csv --summary-json \
    .\\orders.csv) >/dev/null 2>"$work/stderr" || status=$?
  check "windows: reconcile --summary-json naming the orders file (another spelling) exits 2" \
    test "$status" -eq 2
  check "windows: ...and the orders file is untouched" \
    grep -q 'SANDBOX-OK-1,40000' "$top/orders.csv"
  # Ctrl-C (wine turns SIGINT into the console's CTRL_C_EVENT): the first lets the request in
  # flight finish, a second stops payverify at once, exit 130.
  # Started here, not through run_on, so that $! is wine's own process (env execs it).
  env -i HOME="$work/home" WINEPREFIX="$work/wine" WINEDEBUG=-all PATH=/usr/bin:/bin \
    "$WINE" "$exe" verify --sandbox SANDBOX-SLOW-60000-ctrl-c >/dev/null 2>"$work/stderr" &
  local pid=$! i
  sleep 5
  kill -INT "$pid" 2>/dev/null || true
  sleep 1
  kill -INT "$pid" 2>/dev/null || true
  for i in $(seq 150); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  status=0
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  wait "$pid" || status=$?
  check "windows: Ctrl-C twice during a slow request exits 130 (after $i polls of 0.2 s)" test "$status" -eq 130
  out="$(run_on "$target" "$exe" config path 2>/dev/null || true)"
  check "windows: the default config file is under AppData\\Roaming ($out)" \
    grep -q 'AppData\\Roaming\\payverify\\config\\config.toml' <<<"$out"
}

# The library's unit tests built for Windows and run under wine: the process tree's job
# object, the access-list check, paths, parsing.
check_windows_unit_tests() {
  say "x86_64-pc-windows-gnu: cargo test --lib under wine"
  local runner="$work/wine-test-runner"
  # shellcheck disable=SC2016 # $1 and $@ are the runner's own, expanded when it runs
  printf '#!/bin/sh\ncp "%s" "$(dirname "$1")/" &&\nexec env HOME="%s" WINEPREFIX="%s" WINEDEBUG=-all "%s" "$@"\n' \
    "$work/wine-helpers/bcryptprimitives.dll" "$work/home" "$work/wine" "$WINE" >"$runner"
  chmod +x "$runner"
  CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER="$runner" \
    cargo test --locked --lib --target x86_64-pc-windows-gnu >"$work/wintest.log" 2>&1 || true
  grep -E '^test result|FAILED|panicked' "$work/wintest.log" | sed 's/^/     /'
  check "windows: the library's unit tests pass under wine" \
    grep -Eq '^test result: ok\. [1-9][0-9]* passed; 0 failed' "$work/wintest.log"
}

# A macOS tarball: its files, and its binary, which cannot run here, checked for what can be.
check_macos() {
  local target="$1" name arch tarball bin out minos
  name="$(archive_name "$target")"
  arch="${target%%-*}"
  [ "$arch" != aarch64 ] || arch=arm64
  tarball="$DIST_DIR/$(archive_file "$target")"
  say "$target: the tarball"
  archive_list "$tarball" >"$work/mac.files"
  unix_archive_files "$name" >"$work/mac.expected"
  check "macos $arch: the tarball holds exactly the expected files" same_lines "$work/mac.files" "$work/mac.expected"
  mkdir -p "$work/mac-$arch"
  tar -xzf "$tarball" -C "$work/mac-$arch"
  bin="$work/mac-$arch/$name/payverify"
  out="$(file -b "$bin")"
  printf '     file: %s\n' "$out"
  check "macos $arch: file says ${FILE_SAYS[$target]}" grep -Eq "${FILE_SAYS[$target]}" <<<"$out"
  "$LLVM_OBJDUMP" --macho --dylibs-used "$bin" | tail -n +2 | sed 's/^[[:space:]]*//; s/ (.*//' >"$work/dylibs"
  printf '     links: %s\n' "$(tr '\n' ' ' <"$work/dylibs")"
  check "macos $arch: links libSystem" grep -qx '/usr/lib/libSystem.B.dylib' "$work/dylibs"
  check "macos $arch: ...and only system libraries (/usr/lib, /System/Library)" \
    not grep -Ev '^(/usr/lib/|/System/Library/Frameworks/)' "$work/dylibs"
  "$LLVM_OBJDUMP" --macho --private-headers "$bin" >"$work/headers"
  check "macos $arch: a position-independent executable" grep -Eq 'EXECUTE .*PIE' "$work/headers"
  minos="$(awk '/LC_BUILD_VERSION/ {f = 1} f && $1 == "minos" {print $2; exit}' "$work/headers")"
  check "macos $arch: runs on macOS 11 and later (minos $minos), as the README says" \
    test "$minos" = 11.0
  check "macos $arch: the binary holds no value from the builder's environment" \
    not grep -qF "$SENTINEL" "$bin"
  check "macos $arch: the man page is the one the Linux build generated" \
    cmp -s "$work/mac-$arch/$name/doc/payverify.1" "$GEN_DIR/payverify.1"
}

# `formula_names FILE SUM`: the formula downloads FILE and checks it against SUM.
formula_names() {
  grep -qF "url \"$RELEASE_URL/$1\"" "$DIST_DIR/payverify.rb" &&
    grep -qF "sha256 \"$2\"" "$DIST_DIR/payverify.rb"
}

# The Homebrew formula and Scoop manifest name each archive with its SHA256SUMS checksum.
check_publishing() {
  say "dist/payverify.rb, dist/payverify.json"
  RELEASE_URL="${RELEASE_BASE_URL:-https://github.com/payverify/payverify/releases/download/v$VERSION}"
  local t f sum
  for t in x86_64-apple-darwin aarch64-apple-darwin x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
    f="$(archive_file "$t")"
    sum="$(awk -v f="$f" '$2 == f {print $1}' "$DIST_DIR/SHA256SUMS")"
    check "payverify.rb: $f with its checksum" formula_names "$f" "$sum"
  done
  check "payverify.rb: class Payverify < Formula, version $VERSION" \
    has_lines "$DIST_DIR/payverify.rb" "class Payverify < Formula" "  version \"$VERSION\""
  if command -v ruby >/dev/null 2>&1; then
    check "payverify.rb: ruby -c says Syntax OK" ruby -c "$DIST_DIR/payverify.rb"
  fi
  f="$(archive_file x86_64-pc-windows-gnu)"
  sum="$(awk -v f="$f" '$2 == f {print $1}' "$DIST_DIR/SHA256SUMS")"
  check "payverify.json: JSON naming $f, its checksum, its top directory and payverify.exe" \
    python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
arch = m["architecture"]["64bit"]
assert arch["url"] == sys.argv[2] + "/" + sys.argv[3], arch["url"]
assert arch["hash"] == sys.argv[4], arch["hash"]
assert arch["extract_dir"] == sys.argv[5], arch["extract_dir"]
assert m["bin"] == "payverify.exe" and m["version"] == sys.argv[6], m
' "$DIST_DIR/payverify.json" "$RELEASE_URL" "$f" "$sum" "$(archive_name x86_64-pc-windows-gnu)" "$VERSION"
}

say "checksums"
check "SHA256SUMS verifies every artefact" sha256_verifies SHA256SUMS
for t in "${targets[@]}"; do
  files=("$(archive_file "$t")")
  [ -z "$(deb_arch "$t")" ] || files+=("$(deb_file "$t")")
  for f in "${files[@]}"; do
    check "$f.sha256 verifies" sha256_verifies "$f.sha256"
    check "...and is $f's line of SHA256SUMS" grep -qxF "$(cat "$DIST_DIR/$f.sha256")" "$DIST_DIR/SHA256SUMS"
  done
done
printf '     sizes (bytes):\n'
for f in "$DIST_DIR"/*.tar.gz "$DIST_DIR"/*.zip "$DIST_DIR"/*.deb; do
  if [ -e "$f" ]; then printf '       %s %s\n' "$(stat -c %s "$f")" "${f##*/}"; fi
done

[ -z "$all" ] || start_sandbox
check_linux "$HOST_TARGET"
if [ -n "$all" ]; then
  check_linux aarch64-unknown-linux-musl
  check_windows
  rustup component list --installed | grep -q '^llvm-tools' || rustup component add llvm-tools
  LLVM_OBJDUMP="$(find "$(rustc --print sysroot)/lib/rustlib" -name llvm-objdump -type f | head -1)"
  [ -x "$LLVM_OBJDUMP" ] || die "no llvm-objdump in the llvm-tools component"
  check_macos x86_64-apple-darwin
  check_macos aarch64-apple-darwin
  check_publishing
  check_windows_unit_tests
fi

say "cargo package"
cargo package --locked --allow-dirty --list 2>/dev/null | tee "$work/package.list" | sed 's/^/     /'
check "cargo package --list: licences, changelog, README, sources" has_lines "$work/package.list" \
  LICENSE-MIT LICENSE-APACHE CHANGELOG.md README.md Cargo.lock src/main.rs
check "cargo package --list: no fuzz/, benches/, scripts/, .ci/, target/ or dist/" \
  not grep -Eq '^(fuzz|benches|scripts|\.ci|target|dist)/' "$work/package.list"
check "cargo package --locked builds the packaged crate" cargo package --locked --allow-dirty

say "finished in $(($(date +%s) - RELEASE_STARTED)) s"
printf '     --version start-up, one run each in an empty environment: %s\n' \
  "$(printf '%s; ' "${startups[@]}")"
# The plain tally line CI logs are read for.
printf 'release-check: %d passed, %d failed\n' "$passes" "$failures"
if [ "$failures" -ne 0 ]; then
  exit 1
fi
