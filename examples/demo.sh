#!/usr/bin/env bash
# The acquisition loop end to end, offline: a local skill registry (examples/registry), a fresh
# nervous home and a scratch project directory, both temporary. An agent's calls use the JSON
# front end; every step is also shown as a person would read it.
#
#   bash examples/demo.sh            (after: pip install -e .)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/nervous-demo.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export NERVOUS_HOME="$work/home" NERVOUS_DISABLE_PLUGIN_AUTOLOAD=1
mkdir -p "$work/project" && cd "$work/project"
py="${PYTHON:-python3}"
nervous() { command "$py" -m nervous --config "$here/nervous.toml" "$@"; }
field() { "$py" -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1], {}, {"d": d}))' "$1"; }
say() { printf '\n\033[1m== %s\033[0m\n' "$*" 2>/dev/null || printf '\n== %s\n' "$*"; }
[ -t 1 ] || say() { printf '\n== %s\n' "$*"; }

task="count the words in my report"

say "1. A person asks for a skill (no terminal here, so nothing waits)"
nervous acquire "$task" | tee "$work/first.txt"
token="$(sed -n 's/^  nervous approve \([^ ]*\).*# 1\..*/\1/p' "$work/first.txt")"

say "2. The person approves candidate 1: install, then the plan"
nervous approve "$token"

say "3. The skill did the job: nervous learns and removes it"
nervous done word-count --outcome success

say "4. An agent repeats the task (JSON front end) until the reflex fires"
for round in 2 3 4 5 6 7 8; do
  state="$(nervous acquire "$task" --json)"
  mode="$(field 'd["mode"]' <<<"$state")"
  token="$(field 'd["candidates"][0]["token"]' <<<"$state")"
  if [ "$mode" = "reflex" ]; then
    say "Round $round: the reflex fast path (the agent shows the notice)"
    field '"⚡ Skill Cortex reflex: {name} v{version} ({success_rate}% success rate)".format(**d["notice"])' \
      <<<"$state"
    printf '   Task: %s (%s) | Will install and execute. Say cancel to abort.\n' "$task" \
      "$(field '", ".join(d["notice"]["traits"])' <<<"$state")"
  fi
  nervous approve "$token" --json >/dev/null
  result="$(nervous done word-count --outcome success --json)"
  if [ "$(field 'd["state"]' <<<"$result")" = "retention" ]; then
    nervous done word-count --release --json >/dev/null   # keep nothing installed
  fi
  printf 'round %s: %-8s -> success, weight %s, %s in a row, reflex %s\n' "$round" "$mode" \
    "$(field 'round(d["learned"]["weight"], 3)' <<<"$result")" \
    "$(field 'd["learned"]["consecutive_successes"]' <<<"$result")" \
    "$(field 'str(d["learned"]["reflex"]).lower()' <<<"$result")"
  [ "$mode" = "reflex" ] && break
done

say "5. A skill that writes never reflexes; a destructive one needs review"
nervous acquire "take notes of the standup meeting" | sed '/^Nothing is installed/,$d'
nervous acquire "clean up disk space in my project" | sed '/^Nothing is installed/,$d'

say "6. What nervous remembers (filtered signal words, never the task)"
nervous cortex show
