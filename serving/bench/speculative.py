"""`bench speculative`: prompt-lookup decoding against plain decoding, on recorded requests.

An agent's tool call copies most of its tokens from what the prompt already holds: the tools'
schema (names, argument keys) and the screen (labels, texts). Prompt-lookup speculation (vLLM's
`ngram` method) drafts the tokens that followed the last few generated tokens where they last
appeared in the context, and one forward pass verifies them all: every draft token the model
would have chosen itself is kept, and the first it would not have chosen is replaced by its
own choice. Under greedy decoding the output is meant to be the very one plain decoding gives;
this benchmark checks it token by token, since a forward pass over several positions runs other
kernels than one over a single position, and bf16 near-ties could tip.

The sides compared are servers of one build: `all-logits` decodes one token a step and
computes every logit, as vLLM does; `plain` decodes one token a step and, under a tool call's
grammar, computes only the logits of the tokens it allows (`serving.vllm_plugin.grammar_head`);
`speculative` adds the drafts. Every side's replies are compared with the first side's.

Requests are replayed as recorded (an agent's chat requests: messages, tools, tool choice,
thinking), made greedy (temperature 0), streamed, with the generated token ids returned. Each
run gives the first tool's description and the system message a marker of its own, so the
first request of a run is cold on either server and the later ones reuse what the one before
left in the prefix cache, as an agent's steps do. Every server sees the same runs in the same
order, and the servers take turns, a run each, so that a machine shared with other work loads
them alike; the cores other processes took during each run are measured and reported.

Per request: time to first token, whole time, time per output token after the first. The
report compares the sides on identical outputs (the speedup holds for exactly these tokens), and
reckons a decision with a call of fixed length as `bench step` does: a later request's time to
first token plus `call_tokens - 1` times the time per output token, medians. The later requests
are those after the first of a run that no earlier request of the recording repeats: an agent
on random weights plays its second episode as it played the first, and a request the server
has seen whole finds its prompt all cached, which an agent's next step, with a new screen,
never does.
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel

DEFAULT_CALL_TOKENS = 24
_TIMEOUT_S = 1800.0


class RequestRecorder:
    """Appends each request body it is called with to a JSON-lines file, as it comes."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("w", encoding="utf-8")

    def __call__(self, body: dict[str, Any]) -> None:
        self._file.write(json.dumps(body, ensure_ascii=False) + "\n")
        self._file.flush()

    def __enter__(self) -> RequestRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()


def read_requests(path: Path) -> list[dict[str, Any]]:
    """The chat requests of a recording (`bench step --record`); ValueError when it is none."""
    bodies = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            body = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from None
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise ValueError(f"{path}:{number}: not a chat request (no messages)")
        bodies.append(body)
    if not bodies:
        raise ValueError(f"{path} holds no requests")
    return bodies


class ReplayedReply(BaseModel):
    run: int
    request: int  # position in the recording
    prompt_tokens: int | None
    cached_tokens: int | None
    token_ids: list[int]
    text: str
    finish_reason: str | None
    ttft_ms: float
    total_ms: float
    ms_per_output_token: float | None  # None with fewer than two tokens


class ServerRun(BaseModel):
    label: str  # the side: "all-logits", "plain" or "speculative"
    serve_args: list[str]  # what the server was given beyond the shared settings
    load_seconds: list[float] = []  # each start
    # cores that processes other than the server and the benchmark kept busy, each run
    foreign_cores: list[float] = []
    replies: list[ReplayedReply] = []
    error: str | None = None


class Difference(BaseModel):
    side: str  # the side whose reply differs from the first side's
    run: int
    request: int
    position: int  # first token that differs (or where one output ends before the other)
    first: list[int]  # a few tokens from there, the first side's
    other: list[int]


class SideMedians(BaseModel):
    later_requests: int  # how many replies the medians are over
    later_ttft_ms: float | None
    later_ms_per_output_token: float | None
    later_total_ms: float | None
    call_decision_s: float | None  # later TTFT + (call_tokens - 1) x time per output token
    # the first side's medians over this side's, on the same outputs
    later_total_speedup: float | None = None
    call_decision_speedup: float | None = None


class SpeculativeReport(BaseModel):
    model: str
    cpus: int  # the server's threads
    requests: int
    runs: int
    call_tokens: int
    # requests whose messages an earlier request of the recording had: compared, not timed
    repeated: list[int]
    sides: list[ServerRun]  # the first is the one every other is compared with
    medians: list[SideMedians]  # one per side, in the same order
    compared: int  # replies of the other sides compared with the first's, token by token
    identical: int
    exact: bool  # every compared reply identical, and none missing
    differences: list[Difference]
    output_tokens: int  # generated by the first side over all its replies


def _marked(body: dict[str, Any], marker: str) -> dict[str, Any]:
    """The request with `marker` before its system message and its first tool's description:
    the start of the prompt (the template renders the tools first), so runs share nothing."""
    marked = copy.deepcopy(body)
    messages = marked.get("messages") or []
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = f"[{marker}] {messages[0]['content']}"
    tools = marked.get("tools") or []
    if tools:
        function = tools[0]["function"]
        function["description"] = f"[{marker}] {function.get('description', '')}"
    return marked


def greedy_request(
    body: dict[str, Any], model: str, marker: str, max_tokens: int | None = None
) -> dict[str, Any]:
    """A recorded chat request, greedy and streamed, asking for the generated token ids, and
    for at most `max_tokens` of them where given."""
    request = _marked(body, marker)
    if max_tokens is not None:
        request["max_tokens"] = min(max_tokens, request.get("max_tokens") or max_tokens)
    request.update(
        {
            "model": model,
            "temperature": 0,
            "top_p": 1,
            "stream": True,
            "stream_options": {"include_usage": True},
            "return_token_ids": True,
        }
    )
    return request


def replay_one(
    client: httpx.Client, request: dict[str, Any], run: int, index: int
) -> ReplayedReply:
    started = time.perf_counter()
    first: float | None = None
    token_ids: list[int] = []
    text: list[str] = []
    finish_reason = None
    usage: dict[str, Any] = {}
    with client.stream("POST", "/chat/completions", json=request) as response:
        if response.status_code >= 400:
            response.read()
            raise RuntimeError(f"HTTP {response.status_code}: {response.text.strip()[:200]}")
        for line in response.iter_lines():
            if not line.startswith("data:") or line.strip() == "data: [DONE]":
                continue
            chunk = json.loads(line[len("data:") :])
            usage = chunk.get("usage") or usage
            for choice in chunk.get("choices") or []:
                if first is None:
                    first = time.perf_counter()
                token_ids += choice.get("token_ids") or []
                delta = choice.get("delta") or {}
                text.append(delta.get("content") or delta.get("reasoning") or "")
                for call in delta.get("tool_calls") or []:
                    function = call.get("function") or {}
                    text.append((function.get("name") or "") + (function.get("arguments") or ""))
                finish_reason = choice.get("finish_reason") or finish_reason
    ended = time.perf_counter()
    first = ended if first is None else first
    count = len(token_ids)
    return ReplayedReply(
        run=run,
        request=index,
        prompt_tokens=usage.get("prompt_tokens"),
        cached_tokens=(usage.get("prompt_tokens_details") or {}).get("cached_tokens"),
        token_ids=token_ids,
        text="".join(text),
        finish_reason=finish_reason,
        ttft_ms=round((first - started) * 1e3, 2),
        total_ms=round((ended - started) * 1e3, 2),
        ms_per_output_token=round((ended - first) * 1e3 / (count - 1), 3) if count > 1 else None,
    )


def replay(
    base_url: str,
    model: str,
    bodies: Sequence[dict[str, Any]],
    run: int,
    progress: Callable[[str], None] = lambda message: None,
    max_tokens: int | None = None,
) -> list[ReplayedReply]:
    """Every recorded request, in order, under the marker of run `run`."""
    replies = []
    with httpx.Client(base_url=base_url, timeout=_TIMEOUT_S) as client:
        for index, body in enumerate(bodies):
            request = greedy_request(body, model, f"replay {run}", max_tokens)
            reply = replay_one(client, request, run, index)
            progress(
                f"run {run} request {index + 1}/{len(bodies)}: {len(reply.token_ids)} tokens "
                f"in {reply.total_ms:.0f} ms (first after {reply.ttft_ms:.0f} ms)"
            )
            replies.append(reply)
    return replies


def _busy_ticks() -> int:
    """CPU time the whole machine has spent busy, in clock ticks (/proc/stat)."""
    with open("/proc/stat", encoding="ascii") as stat:
        ticks = [int(field) for field in stat.readline().split()[1:9]]
    # user, nice, system, (idle, iowait left out), irq, softirq, steal
    return sum(ticks[:3]) + sum(ticks[5:8])


def _process_ticks(pids: Sequence[int]) -> int:
    """User and system time of the given processes, in clock ticks; gone ones count 0."""
    ticks = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks


class ForeignCores:
    """Cores that processes other than `ours()` kept busy while the block ran."""

    def __init__(
        self,
        ours: Callable[[], Sequence[int]],
        machine_ticks: Callable[[], int] = _busy_ticks,
        process_ticks: Callable[[Sequence[int]], int] = _process_ticks,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ours = ours
        self._machine_ticks = machine_ticks
        self._process_ticks = process_ticks
        self._clock = clock
        self.cores: float | None = None

    def __enter__(self) -> ForeignCores:
        self._started = self._clock()
        self._busy = self._machine_ticks()
        self._mine = self._process_ticks(self._ours())
        return self

    def __exit__(self, *exc: object) -> None:
        elapsed = self._clock() - self._started
        busy = self._machine_ticks() - self._busy
        mine = self._process_ticks(self._ours()) - self._mine
        ticks_per_s = os.sysconf("SC_CLK_TCK")
        self.cores = round(max(0, busy - mine) / ticks_per_s / elapsed, 2) if elapsed else None


def _median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return round(statistics.median(present), 3) if present else None


def repeated_requests(bodies: Sequence[dict[str, Any]]) -> list[int]:
    """The positions of the requests whose messages an earlier request already had."""
    seen: set[str] = set()
    repeated = []
    for position, body in enumerate(bodies):
        messages = json.dumps(body.get("messages"), sort_keys=True, ensure_ascii=False)
        if messages in seen:
            repeated.append(position)
        seen.add(messages)
    return repeated


def side_medians(
    replies: Sequence[ReplayedReply], call_tokens: int, repeated: Sequence[int] = ()
) -> SideMedians:
    """Medians over the later requests of each run: not the first (it is cold), and none that
    repeats an earlier one (its whole prompt is cached)."""
    later = [r for r in replies if r.request > 0 and r.request not in repeated]
    ttft = _median([r.ttft_ms for r in later])
    per_token = _median([r.ms_per_output_token for r in later])
    call = None
    if ttft is not None and per_token is not None:
        call = round((ttft + (call_tokens - 1) * per_token) / 1000, 3)
    return SideMedians(
        later_requests=len(later),
        later_ttft_ms=ttft,
        later_ms_per_output_token=per_token,
        later_total_ms=_median([r.total_ms for r in later]),
        call_decision_s=call,
    )


def first_difference(first: list[int], other: list[int]) -> int | None:
    for position, (a, b) in enumerate(zip(first, other, strict=False)):
        if a != b:
            return position
    return None if len(first) == len(other) else min(len(first), len(other))


def compare(
    model: str,
    request_count: int,
    runs: int,
    sides: Sequence[ServerRun],
    call_tokens: int = DEFAULT_CALL_TOKENS,
    cpus: int = 0,
    repeated: Sequence[int] = (),
) -> SpeculativeReport:
    """Every side's replies against the first side's, token by token, and the medians of each
    with the first side's over its own."""
    first, *others = sides
    differences = []
    identical = 0
    for side in others:
        replies = {(r.run, r.request): r for r in side.replies}
        for reply in first.replies:
            other = replies.get((reply.run, reply.request))
            if other is None:
                continue
            position = first_difference(reply.token_ids, other.token_ids)
            if position is None:
                identical += 1
            else:
                differences.append(
                    Difference(
                        side=side.label,
                        run=reply.run,
                        request=reply.request,
                        position=position,
                        first=reply.token_ids[position : position + 8],
                        other=other.token_ids[position : position + 8],
                    )
                )
    compared = identical + len(differences)
    medians = [side_medians(side.replies, call_tokens, repeated) for side in sides]
    for timed in medians:
        timed.later_total_speedup = _ratio(medians[0].later_total_ms, timed.later_total_ms)
        timed.call_decision_speedup = _ratio(medians[0].call_decision_s, timed.call_decision_s)
    expected = request_count * runs * len(others)
    return SpeculativeReport(
        model=model,
        cpus=cpus,
        requests=request_count,
        runs=runs,
        call_tokens=call_tokens,
        repeated=list(repeated),
        sides=list(sides),
        medians=medians,
        compared=compared,
        identical=identical,
        exact=not differences and compared == expected > 0,
        differences=differences,
        output_tokens=sum(len(r.token_ids) for r in first.replies),
    )


def _ratio(value: float | None, base: float | None) -> float | None:
    return round(value / base, 3) if value and base else None


def _cell(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def render_text(report: SpeculativeReport) -> str:
    first = report.sides[0].label
    lines = [
        f"{report.model}: {report.requests} recorded requests x {report.runs} runs, greedy, "
        f"on {report.cpus} cores; the sides took turns, a run each",
        "| side | serve args | load s | cores busy elsewhere | later TTFT ms "
        f"| ms / output token | later request ms | decision with a {report.call_tokens}-token "
        f"call, s | decision vs {first} |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for run, side in zip(report.sides, report.medians, strict=True):
        if run.error:
            lines.append(f"| {run.label} | {' '.join(run.serve_args)} | failed: {run.error} |")
            continue
        lines.append(
            f"| {run.label} | {' '.join(run.serve_args) or '-'} "
            f"| {_cell(_median(run.load_seconds))} | {_cell(_median(run.foreign_cores), 2)} "
            f"| {_cell(side.later_ttft_ms, 0)} | {_cell(side.later_ms_per_output_token)} "
            f"| {_cell(side.later_total_ms, 0)} | {_cell(side.call_decision_s, 2)} "
            f"| {_cell(side.call_decision_speedup, 2)}x |"
        )
    if report.repeated:
        numbers = ", ".join(str(position + 1) for position in report.repeated)
        lines.append(
            f"requests {numbers} repeat earlier ones (their prompts all cached): compared, "
            "left out of the times"
        )
    verdict = "identical" if report.exact else "NOT identical"
    lines.append(
        f"outputs against {first}'s: {report.identical} of {report.compared} replies identical "
        f"token by token ({report.output_tokens} tokens): {verdict}"
    )
    lines += [
        f"  {d.side}, run {d.run} request {d.request + 1}: first differs at token "
        f"{d.position}: {first} {d.first} vs {d.side} {d.other}"
        for d in report.differences
    ]
    return "\n".join(lines)
