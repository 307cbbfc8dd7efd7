"""Fidelity of a quantized build against its own bf16: greedy agreement and log-probabilities.

Both builds are served in turn by the launcher `phone-agent serve` uses. The reference continues
each prompt greedily; the candidate continues the same prompt greedily (greedy match: how many
leading tokens agree) and is also teacher-forced on the reference's continuation, so the
log-probability it gives each reference token can be compared with the reference's own.
On random weights this proves only the plumbing; with the real model it measures drift.

Prompts are plain text (a built-in set, or a file with one a line) or the agent's own chat
requests, taken from a demonstrations file (`phone-agent eval --export-demos`) and rendered
with the checkpoint's chat template as the server renders them. A model trained only on agent
requests continues plain text close to randomly, so quantization noise flips its tokens there
while its decisions hold: for such a model only the chat requests measure what the agent sees.
A chat request's continuation ends with the reply, and `identical` says whether the candidate
wrote the very same reply (the same tool call).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from pathlib import Path

import httpx
from pydantic import BaseModel

from serving.errors import ServingUsageError
from serving.training.data import ChatRenderer, parse_demo, read_demo_lines

BUILTIN_PROMPTS = (
    "Turn on Wi-Fi in the Settings app.",
    "Set an alarm for 7:30 tomorrow morning labelled gym.",
    "Send a message to Alice saying I will be late.",
    "Open the clock app and delete the 6:00 alarm.",
    "Enable dark theme, then go back to the home screen.",
    "Add a contact named Bob with the number 555 0100.",
)


# A whole reply to a chat request: a typed text can run to dozens of tokens.
CHAT_REPLY_TOKENS = 128
DEMONSTRATION_SUFFIXES = (".jsonl", ".jsonl.gz", ".jsonl.xz")


class ComparePrompt(BaseModel):
    label: str  # how the report names it
    prompt: str | list[int]  # plain text, or the token ids of a rendered chat request
    chat: bool = False  # continuations stop where the reply ends


class PromptComparison(BaseModel):
    prompt: str
    greedy_prefix_match: int
    greedy_tokens: int
    identical: bool  # the candidate's greedy continuation is the reference's, token for token
    mean_abs_logprob_delta: float
    max_abs_logprob_delta: float


class BuildComparison(BaseModel):
    reference: str
    candidate: str
    prompts: list[PromptComparison]
    greedy_match_rate: float
    identical_rate: float
    mean_abs_logprob_delta: float
    max_abs_logprob_delta: float

    def summary(self) -> str:
        return (
            f"{len(self.prompts)} prompts: greedy prefix agreement "
            f"{self.greedy_match_rate:.0%}, identical continuations {self.identical_rate:.0%}, "
            f"mean |Δ logprob| {self.mean_abs_logprob_delta:.3f}, "
            f"max {self.max_abs_logprob_delta:.3f}"
        )


def load_prompts(spec: str, model_dir: Path, count: int) -> list[ComparePrompt]:
    """`builtin`, a demonstrations file (`count` of its requests, spread evenly over it) or a
    text file with one prompt a line."""
    if spec == "builtin":
        return [ComparePrompt(label=text, prompt=text) for text in BUILTIN_PROMPTS]
    path = Path(spec)
    if not path.is_file():
        raise ServingUsageError(f"no prompt file {path}")
    if path.name.endswith(DEMONSTRATION_SUFFIXES):
        if count < 1:
            raise ServingUsageError(f"--compare-count must be at least 1, not {count}")
        return _chat_prompts(path, model_dir, count)
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ComparePrompt(label=line, prompt=line) for line in lines if line.strip()]


def _chat_prompts(path: Path, model_dir: Path, count: int) -> list[ComparePrompt]:
    from transformers import AutoTokenizer

    lines = read_demo_lines(path)
    step = max(1, len(lines) // count)
    picked = list(range(0, len(lines), step))[:count]
    tokenizer = AutoTokenizer.from_pretrained(str(model_dir))
    # The checkpoint's own template where it has one, as the server chooses.
    renderer = ChatRenderer(tokenizer, tokenizer.chat_template or None)
    prompts = []
    for number in picked:
        demo = parse_demo(lines[number], number + 1)
        text, _ = renderer.render(demo)
        goal = next(iter(str(demo.messages[-1].get("content") or "").splitlines()), "")[:60]
        prompts.append(
            ComparePrompt(
                label=f"demonstration {number + 1}: {goal}",
                prompt=renderer.encode_prompt(text),
                chat=True,
            )
        )
    return prompts


def _token_ids(tokens: Sequence[str]) -> list[int]:
    # With return_tokens_as_token_ids, vLLM spells each token "token_id:N".
    return [int(token.rsplit(":", 1)[1]) for token in tokens]


class _Greedy(BaseModel):
    prompt_ids: list[int]
    ids: list[int]
    logprobs: list[float]


def _greedy(client: httpx.Client, model: str, prompt: ComparePrompt, tokens: int) -> _Greedy:
    body = {
        "model": model,
        "prompt": prompt.prompt,
        "max_tokens": max(tokens, CHAT_REPLY_TOKENS) if prompt.chat else tokens,
        "temperature": 0,
        # Plain prompts continue for a fixed length; past the end of a reply nothing is decided.
        "ignore_eos": not prompt.chat,
        "logprobs": 0,
        "return_tokens_as_token_ids": True,
        "return_token_ids": True,
    }
    choice = client.post("/completions", json=body).raise_for_status().json()["choices"][0]
    return _Greedy(
        prompt_ids=choice["prompt_token_ids"],
        ids=_token_ids(choice["logprobs"]["tokens"]),
        logprobs=choice["logprobs"]["token_logprobs"],
    )


def _forced_logprobs(
    client: httpx.Client, model: str, prompt_ids: list[int], continuation: list[int]
) -> list[float]:
    """The model's log-probability of each continuation token given everything before it."""
    body = {
        "model": model,
        "prompt": prompt_ids + continuation,
        "max_tokens": 1,
        "temperature": 0,
        "prompt_logprobs": 0,
    }
    choice = client.post("/completions", json=body).raise_for_status().json()["choices"][0]
    positions = choice["prompt_logprobs"][len(prompt_ids) :]
    return [
        entry[str(token)]["logprob"] for entry, token in zip(positions, continuation, strict=True)
    ]


def _serve(model_dir: Path, label: str, log_dir: Path) -> tuple[int, str]:
    from serving import launcher

    # Room for the agent's longest requests (about 2,000 tokens) and a whole reply.
    settings = launcher.ServeSettings(
        port=launcher.free_port(), max_model_len=4096, max_num_seqs=1, enforce_eager=True
    )
    model = launcher.ResolvedModel(model_dir, label, "local")
    env = launcher.server_environment(os.environ, os.sched_getaffinity(0))
    log_dir.mkdir(parents=True, exist_ok=True)
    process = launcher.start_server(
        launcher.server_command(model, settings), env, log_dir / f"compare-{label}.log"
    )
    try:
        launcher.wait_until_ready(
            process, settings.base_url, log_dir / f"compare-{label}.log", lambda s: None, 1800
        )
    except BaseException:
        launcher.stop_group(process.pid)
        raise
    return process.pid, settings.base_url


def compare_builds(
    reference_dir: Path, candidate_dir: Path, prompts: Sequence[ComparePrompt], tokens: int = 32
) -> BuildComparison:
    from serving import launcher
    from serving.checkpoint import user_cache_dir

    log_dir = user_cache_dir() / "compare"
    pid, base_url = _serve(reference_dir, "reference", log_dir)
    try:
        with httpx.Client(base_url=base_url, timeout=600) as client:
            references = [_greedy(client, "reference", prompt, tokens) for prompt in prompts]
    finally:
        launcher.stop_group(pid)
    pid, base_url = _serve(candidate_dir, "candidate", log_dir)
    rows = []
    try:
        with httpx.Client(base_url=base_url, timeout=600) as client:
            for prompt, reference in zip(prompts, references, strict=True):
                candidate = _greedy(client, "candidate", prompt, tokens)
                forced = _forced_logprobs(client, "candidate", reference.prompt_ids, reference.ids)
                deltas = [abs(a - b) for a, b in zip(forced, reference.logprobs, strict=True)]
                # Replies to chat requests end where the model stops, so lengths may differ.
                pairs = zip(candidate.ids, reference.ids, strict=False)
                shorter = min(len(candidate.ids), len(reference.ids))
                agree = next((i for i, (a, b) in enumerate(pairs) if a != b), shorter)
                rows.append(
                    PromptComparison(
                        prompt=prompt.label,
                        greedy_prefix_match=agree,
                        greedy_tokens=len(reference.ids),
                        identical=candidate.ids == reference.ids,
                        mean_abs_logprob_delta=statistics.fmean(deltas),
                        max_abs_logprob_delta=max(deltas),
                    )
                )
    finally:
        launcher.stop_group(pid)
    return BuildComparison(
        reference=str(reference_dir),
        candidate=str(candidate_dir),
        prompts=rows,
        greedy_match_rate=sum(r.greedy_prefix_match for r in rows)
        / sum(r.greedy_tokens for r in rows),
        identical_rate=sum(r.identical for r in rows) / len(rows),
        mean_abs_logprob_delta=statistics.fmean(r.mean_abs_logprob_delta for r in rows),
        max_abs_logprob_delta=max(r.max_abs_logprob_delta for r in rows),
    )
