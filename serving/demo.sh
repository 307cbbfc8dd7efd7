#!/usr/bin/env bash
# `make demo`: serve the small policy trained on the simulator (fixtures/models/sim, in the
# weight build the probe picks for this machine), let the agent turn Wi-Fi on with it in the
# simulator, then stop the server.
#
# The run is greedy (temperature 0) so the demo plays the same way every time; it succeeds when
# the agent reports the goal reached (exit code 0).
set -euo pipefail

BIN="${1:?usage: demo.sh PATH/TO/VENV/bin}"
PORT=8000  # the address `phone-agent run` uses by default

"$BIN/phone-agent" serve --model sim --port "$PORT" --enforce-eager --detach
# Armed only now: a server that was already running on the port is not ours to stop.
trap '"$BIN/phone-agent" serve --stop --port "$PORT"' EXIT

status=0
"$BIN/phone-agent" run "Turn on Wi-Fi" --device sim --sim-state wifi=off --temperature 0 \
    || status=$?
case "$status" in
    0) echo "demo: the agent turned Wi-Fi on and reported the task completed" ;;
    *) echo "demo: the agent did not complete the task (exit code $status)" >&2; exit "$status" ;;
esac
