#!/usr/bin/env bash
# `make demo`: serve a tiny random-weight Spark checkpoint (built locally, works offline), let the
# agent drive the simulator with it for three steps, then stop the server.
#
# The weights are random: the agent is expected to act, not to finish the task. The run's exit
# code 1 (goal not reached) is therefore a successful demo; anything else is a failure.
set -euo pipefail

BIN="${1:?usage: demo.sh PATH/TO/VENV/bin}"
PORT=8000  # the address `phone-agent run` uses by default

"$BIN/phone-agent" serve --model tiny --port "$PORT" --enforce-eager --detach
# Armed only now: a server that was already running on the port is not ours to stop.
trap '"$BIN/phone-agent" serve --stop --port "$PORT"' EXIT

status=0
# Required tool choice makes the server's grammar shape even random weights into tool calls, so
# the demo exercises parsing, the guards and the simulator rather than stopping at prose.
"$BIN/phone-agent" run "Turn on Wi-Fi" --device sim --max-steps 3 --tool-choice required \
    || status=$?
case "$status" in
    0) echo "demo: the agent reported the goal reached" ;;
    1) echo "demo: the agent ran; random weights are not expected to reach the goal" ;;
    *) echo "demo: the agent failed (exit code $status)" >&2; exit "$status" ;;
esac
