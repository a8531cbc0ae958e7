#!/usr/bin/env bash
# tools/docs_check --list over the repository's documents, then over small
# documents that each break one rule. Runs nothing of what the documents show.
set -uo pipefail
check=tools/docs_check
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$check" --list 2>&1) || fail "the repository's documents: $out"
echo "$out" | grep -q "0 problem(s)" || fail "unexpected: $out"
echo "$out" | grep -Eq '[1-9][0-9]* run' || fail "no runnable block found: $out"

# expect_problem NAME TEXT PATTERN: the document is refused, naming the line.
expect_problem() {
  printf '%b' "$2" >"$work/$1.md"
  out=$("$check" --list "$work/$1.md" 2>&1) && fail "$1: accepted: $out"
  echo "$out" | grep -q "$3" || fail "$1: the message does not say '$3': $out"
}
expect_problem unmarked 'text\n\n```sh\nls\n```\n' "unmarked.md:3: a \`\`\`sh block must say one of ci, cluster, run"
expect_problem unmarked_bash 'a\n```bash\nls\n```\n' 'unmarked_bash.md:2: a ```bash block must say'
expect_problem two_marks '```sh run ci\nls\n```\n' 'two_marks.md:1:'
expect_problem not_in_ci '```sh ci\n# a comment\nbazel test //nothing/...\n```\n' \
  'not_in_ci.md:1: `bazel test //nothing/...` is marked ci but .ci/run does not run it'
expect_problem bad_shell '```sh cluster\nif then fi (\n```\n' 'bad_shell.md:1: not valid shell'
expect_problem unclosed '```sh run\nls\n' 'unclosed.md:1: the fenced block is never closed'

# Accepted: a ci line that .ci/run runs (continuations joined, comments
# dropped), other languages unmarked, and a marked block of each kind.
printf '%s\n' '```sh ci' 'tools/setup && \' '  bazel test //...   # the tests' '```' \
  '```toml' 'a = 1' '```' '```' 'plain' '```' '```sh cluster' 'srun -n 4 ./prog' '```' \
  '```sh run' 'true' '```' >"$work/good.md"
out=$("$check" --list "$work/good.md" 2>&1) || fail "good.md refused: $out"
echo "$out" | grep -q "3 shell blocks (1 run, 1 ci, 1 cluster); 0 problem(s)" || fail "good.md: $out"
echo "PASS"
