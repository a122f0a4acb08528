#!/usr/bin/env bash
# The command line's generated artefacts in the real tools: bash loads `stagecraft completions
# bash` and completes every subcommand from it; zsh and fish parse their scripts (when installed);
# groff renders every `stagecraft man` page without a warning (installed with apt when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${CARGO_TARGET_DIR:-$PWD/target}/debug/stagecraft"
[ -x "$bin" ] || { echo "check-cli: $bin not built (run cargo test --workspace first)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Every subcommand, from the binary's own help.
mapfile -t commands < <("$bin" --help | awk '/^Commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{exit}' | grep -vx help)
[ "${#commands[@]}" -ge 12 ] || { echo "check-cli: found only ${#commands[@]} subcommands" >&2; exit 1; }

# bash: source the script and ask its completion function for the first word.
"$bin" completions bash > "$work/stagecraft.bash"
bash -c '
    source "$1"
    COMP_WORDS=(stagecraft ""); COMP_CWORD=1; COMP_LINE="stagecraft "; COMP_POINT=${#COMP_LINE}
    _stagecraft stagecraft "" stagecraft
    printf "%s\n" "${COMPREPLY[@]}"
' _ "$work/stagecraft.bash" > "$work/bash-words"
for command in "${commands[@]}"; do
    grep -qx -- "$command" "$work/bash-words" || { echo "check-cli: bash does not complete $command" >&2; exit 1; }
done
echo "check-cli: bash completes ${#commands[@]} subcommands"

if command -v zsh >/dev/null; then
    "$bin" completions zsh > "$work/_stagecraft" && zsh -n "$work/_stagecraft"
    echo "check-cli: zsh parses its script"
fi
if command -v fish >/dev/null; then
    "$bin" completions fish > "$work/stagecraft.fish" && fish --no-execute "$work/stagecraft.fish"
    echo "check-cli: fish parses its script"
fi

# groff: every page renders (through preconv, as man-db does) with warnings on and none printed.
if ! command -v groff >/dev/null; then
    apt-get install -y -qq groff-base >/dev/null
fi
"$bin" man --out "$work/man" > /dev/null
pages=0
for page in "$work"/man/*.1; do
    warnings="$(groff -k -man -Tutf8 -ww -z "$page" 2>&1 || true)"
    [ -z "$warnings" ] || { echo "check-cli: $page: $warnings" >&2; exit 1; }
    pages=$((pages + 1))
done
[ "$pages" -eq $((${#commands[@]} + 1)) ] || { echo "check-cli: $pages pages for ${#commands[@]} commands" >&2; exit 1; }
echo "check-cli: groff renders $pages man pages without warnings"
