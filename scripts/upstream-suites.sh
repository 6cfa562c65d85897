#!/usr/bin/env bash
# Runs Hindsight's own test suites against a fresh embedded server and prints pass/fail per
# suite (docs/server.md keeps the table and explains every remaining failure).
#
#   scripts/upstream-suites.sh <hindsight snapshot> [--ref v0.9.1] [--mimic 0.9|0.10] [--only ts,go,smoke,docs-node,docs-go,openclaw,opencode]
#
# <hindsight snapshot> is a checkout of vectorize-io/hindsight, or a bare git directory (what
# the fetch tool brings), in which case the files of --ref (default v0.9.1) are copied out.
# Everything happens in a temp dir: nothing of upstream enters this repository.
# Needs: node + npm (jest and the published client are installed into the temp dir), go
# (Debian's golang-go) for the Go suites, curl and python3 for the smoke script. The Go suite is
# the client package's integration tests (integration_test.go, null_test.go, trace_test.go); the
# generated stubs under test/ need testify from the Go proxy and never reach a server.
# openclaw and opencode: their lockfiles name packages the npm registry does not serve
# (hindsight-agent-sdk, hindsight-all, client 0.4/0.8), so those come from the snapshot (built
# there) and the client is the published one of --ref.
set -uo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[ $# -ge 1 ] || usage
SNAPSHOT="$1"; shift
REF="v0.9.1"; MIMIC="0.9"; ONLY="ts,go,smoke,docs-node,docs-go,openclaw,opencode"
while [ $# -gt 0 ]; do
  case "$1" in
    --ref) REF="$2"; shift 2 ;;
    --mimic) MIMIC="$2"; shift 2 ;;
    --only) ONLY="$2"; shift 2 ;;
    *) usage ;;
  esac
done

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/upstream-suites.XXXXXX")"
LOGS="$WORK/logs"; mkdir -p "$LOGS"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  [ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

# --- upstream files -------------------------------------------------------------------------
SRC="$WORK/hindsight"
PATHS=(hindsight-clients/typescript hindsight-clients/go scripts/smoke-test-slim.sh hindsight-docs/examples/api hindsight-integrations/openclaw hindsight-integrations/opencode hindsight-tools/hindsight-agent-sdk hindsight-all-npm)
if [ -d "$SNAPSHOT/.git" ] || [ ! -d "$SNAPSHOT/objects" ]; then
  [ -d "$SNAPSHOT/hindsight-clients" ] || { echo "error: $SNAPSHOT is neither a hindsight checkout nor a bare git dir" >&2; exit 2; }
  mkdir -p "$SRC"
  for p in "${PATHS[@]}"; do mkdir -p "$SRC/$(dirname "$p")"; cp -R "$SNAPSHOT/$p" "$SRC/$p"; done
else
  echo "copying $REF out of $SNAPSHOT"
  mkdir -p "$SRC"
  # File by file: a snapshot may lack large blobs (the generator jar), which no suite needs.
  git --git-dir="$SNAPSHOT" ls-tree -r "$REF" -- "${PATHS[@]}" | while read -r _mode type obj path; do
    [ "$type" = blob ] || continue
    git --git-dir="$SNAPSHOT" cat-file -e "$obj" 2>/dev/null || continue
    mkdir -p "$SRC/$(dirname "$path")"
    git --git-dir="$SNAPSHOT" cat-file blob "$obj" > "$SRC/$path"
  done
fi

# --- the embedded server ----------------------------------------------------------------------
# $2: a fixed port (the doc examples hard-code http://localhost:8888 in places); default any free one.
start_server() {
  local log="$LOGS/server-$1.log"
  (cd "$ROOT" && exec node --import tsx src/hosts/cli/main.ts serve --port "${2:-0}" --mimic "$MIMIC" --data-dir "$WORK/data-$1") > "$log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 200); do
    URL="$(grep -o 'listening on http://[0-9.:]*' "$log" | head -1 | sed 's/listening on //')"
    [ -n "$URL" ] && return 0
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  echo "error: the embedded server did not start; see $log" >&2
  cat "$log" >&2
  exit 1
}
stop_server() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  SERVER_PID=""
}

declare -a NAMES RESULTS DETAILS
record() { NAMES+=("$1"); RESULTS+=("$2"); DETAILS+=("$3"); }
wants() { [[ ",$ONLY," == *",$1,"* ]]; }

# Installs jest + ts-jest and the published client once, for the TS suite and the .mjs examples.
NODE_DEPS="$WORK/node-deps"
node_deps() {
  [ -d "$NODE_DEPS/node_modules" ] && return 0
  mkdir -p "$NODE_DEPS"
  (cd "$NODE_DEPS" && npm init -y >/dev/null && npm install --no-audit --no-fund --silent \
    jest@29 ts-jest@29 typescript@5 @types/jest@29 @types/node@20 "@vectorize-io/hindsight-client@${REF#v}" ) > "$LOGS/npm.log" 2>&1 \
    || { echo "error: npm install failed; see $LOGS/npm.log" >&2; return 1; }
}

# --- suites ---------------------------------------------------------------------------------------
if wants ts; then
  echo "== TypeScript client tests (jest)"
  if node_deps; then
    start_server ts
    dir="$SRC/hindsight-clients/typescript"
    ln -sfn "$NODE_DEPS/node_modules" "$dir/node_modules"
    (cd "$dir" && HINDSIGHT_API_URL="$URL" npx jest --ci --json --outputFile="$LOGS/ts.json") > "$LOGS/ts.log" 2>&1
    summary="$(node -e 'const r=require(process.argv[1]);const f=r.testResults.flatMap(t=>t.assertionResults.filter(a=>a.status==="failed").map(a=>a.fullName));console.log(`${r.numPassedTests}/${r.numTotalTests} passed${f.length?"; failed: "+f.join(" | "):""}`)' "$LOGS/ts.json" 2>/dev/null || echo "no result file")"
    if grep -q '"success":true' "$LOGS/ts.json" 2>/dev/null; then record "ts-client (jest)" PASS "$summary"; else record "ts-client (jest)" FAIL "$summary"; fi
    stop_server
  else
    record "ts-client (jest)" SKIP "npm install failed"
  fi
fi

if wants go; then
  echo "== Go client integration tests"
  if command -v go >/dev/null; then
    start_server go
    (cd "$SRC/hindsight-clients/go" && HINDSIGHT_API_URL="$URL" go test -tags integration -count=1 -v . ) > "$LOGS/go.log" 2>&1
    status=$?
    passed=$(grep -c -- '^--- PASS\|^    --- PASS' "$LOGS/go.log"); failed=$(grep -- '--- FAIL' "$LOGS/go.log" | sed 's/.*--- FAIL: \([^ ]*\).*/\1/' | tr '\n' ' ')
    if [ $status -eq 0 ]; then record "go-client (go test -tags integration)" PASS "$passed passed"; else record "go-client (go test -tags integration)" FAIL "$passed passed; failed: ${failed:-see $LOGS/go.log}"; fi
    stop_server
  else
    record "go-client (go test -tags integration)" SKIP "no go (apt-get install golang-go)"
  fi
fi

if wants smoke; then
  echo "== smoke-test-slim.sh"
  start_server smoke
  if bash "$SRC/scripts/smoke-test-slim.sh" "$URL" > "$LOGS/smoke.log" 2>&1; then record "smoke-test-slim.sh" PASS "retain + recall"; else record "smoke-test-slim.sh" FAIL "see $LOGS/smoke.log"; fi
  stop_server
fi

if wants docs-node; then
  echo "== API doc examples (.mjs)"
  if node_deps; then
    ex="$WORK/examples-node"; mkdir -p "$ex"; cp -R "$SRC"/hindsight-docs/examples/api/. "$ex/"; ln -sfn "$NODE_DEPS/node_modules" "$ex/node_modules"
    pass=0; fails=""
    for f in "$ex"/*.mjs; do
      start_server "node-$(basename "$f" .mjs)" 8888
      if (cd "$ex" && HINDSIGHT_API_URL="$URL" timeout 300 node "$f") > "$LOGS/$(basename "$f").log" 2>&1; then pass=$((pass + 1)); else fails="$fails $(basename "$f")"; fi
      stop_server
    done
    if [ -z "$fails" ]; then record "doc examples (.mjs)" PASS "$pass passed"; else record "doc examples (.mjs)" FAIL "$pass passed; failed:$fails"; fi
  else
    record "doc examples (.mjs)" SKIP "npm install failed"
  fi
fi

if wants docs-go; then
  echo "== API doc examples (.go)"
  if command -v go >/dev/null; then
    pass=0; fails=""
    for f in "$SRC"/hindsight-docs/examples/api/*.go; do
      start_server "go-$(basename "$f" .go)" 8888
      if (cd "$SRC/hindsight-clients/go" && HINDSIGHT_API_URL="$URL" timeout 300 go run "$f") > "$LOGS/$(basename "$f").log" 2>&1; then pass=$((pass + 1)); else fails="$fails $(basename "$f")"; fi
      stop_server
    done
    if [ -z "$fails" ]; then record "doc examples (.go)" PASS "$pass passed"; else record "doc examples (.go)" FAIL "$pass passed; failed:$fails"; fi
  else
    record "doc examples (.go)" SKIP "no go (apt-get install golang-go)"
  fi
fi

# Installs an integration's dependencies with the unpublished ones taken from the snapshot.
# $1: directory; $2...: npm pkg set arguments.
npm_install_in() {
  local dir="$1"; shift
  (cd "$dir" && rm -f package-lock.json && { [ $# -eq 0 ] || npm pkg set "$@"; } && npm install --no-audit --no-fund --silent) >> "$LOGS/npm-integrations.log" 2>&1
}
# Vitest's JSON report -> "passed/total passed; failed: ...".
vitest_summary() {
  node -e 'const r=require(process.argv[1]);const f=r.testResults.flatMap(t=>t.assertionResults.filter(a=>a.status==="failed").map(a=>a.fullName));console.log(`${r.numPassedTests}/${r.numTotalTests} passed${f.length?"; failed: "+f.join(" | "):""}`)' "$1" 2>/dev/null || echo "no result file"
}
CLIENT_VERSION="${REF#v}"

if wants openclaw; then
  echo "== openclaw integration tests (HTTP mode and hooks)"
  sdk="$SRC/hindsight-tools/hindsight-agent-sdk"; all="$SRC/hindsight-all-npm"; oc="$SRC/hindsight-integrations/openclaw"
  if npm_install_in "$sdk" "dependencies.@vectorize-io/hindsight-client=$CLIENT_VERSION" && (cd "$sdk" && npx tsc) >> "$LOGS/npm-integrations.log" 2>&1 \
    && npm_install_in "$all" && (cd "$all" && npx tsup) >> "$LOGS/npm-integrations.log" 2>&1 \
    && npm_install_in "$oc" "dependencies.@vectorize-io/hindsight-client=$CLIENT_VERSION" "dependencies.@vectorize-io/hindsight-agent-sdk=file:$sdk" "dependencies.@vectorize-io/hindsight-all=file:$all"; then
    start_server openclaw
    # Embed mode needs Hindsight's Python daemon and LLM credentials: without them its tests return at once.
    (cd "$oc" && HINDSIGHT_API_URL="$URL" npx vitest run --config vitest.integration.config.ts --reporter=json --outputFile="$LOGS/openclaw.json") > "$LOGS/openclaw.log" 2>&1
    status=$?
    if [ $status -eq 0 ]; then record "openclaw (vitest integration)" PASS "$(vitest_summary "$LOGS/openclaw.json"); embed-mode tests are no-ops without an LLM"; else record "openclaw (vitest integration)" FAIL "$(vitest_summary "$LOGS/openclaw.json")"; fi
    stop_server
  else
    record "openclaw (vitest integration)" SKIP "npm install or build failed; see $LOGS/npm-integrations.log"
  fi
fi

if wants opencode; then
  echo "== opencode live e2e"
  ocd="$SRC/hindsight-integrations/opencode"
  if npm_install_in "$ocd" "dependencies.@vectorize-io/hindsight-client=$CLIENT_VERSION"; then
    start_server opencode
    (cd "$ocd" && HINDSIGHT_LIVE_E2E=1 HINDSIGHT_API_URL="$URL" npx vitest run src/e2e.test.ts --reporter=json --outputFile="$LOGS/opencode.json") > "$LOGS/opencode.log" 2>&1
    status=$?
    if [ $status -eq 0 ]; then record "opencode (live e2e)" PASS "$(vitest_summary "$LOGS/opencode.json")"; else record "opencode (live e2e)" FAIL "$(vitest_summary "$LOGS/opencode.json")"; fi
    stop_server
  else
    record "opencode (live e2e)" SKIP "npm install failed; see $LOGS/npm-integrations.log"
  fi
fi

# --- table ------------------------------------------------------------------------------------------
echo
echo "upstream $REF against the embedded server (--mimic $MIMIC); logs: $LOGS (kept with KEEP_WORK=1)"
printf '| %-40s | %-6s | %s\n' "suite" "result" "detail"
status=0
for i in "${!NAMES[@]}"; do
  printf '| %-40s | %-6s | %s\n' "${NAMES[$i]}" "${RESULTS[$i]}" "${DETAILS[$i]}"
  [ "${RESULTS[$i]}" = PASS ] || status=1
done
exit $status
