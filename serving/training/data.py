"""Demonstrations: one chat request and the assistant turn that should answer it.

A demonstration file is JSON Lines (optionally `.gz` or `.xz`), one decision a line:

    {"messages": [...], "tools": [...], "chat_template_kwargs": {"enable_thinking": true},
     "target": {"role": "assistant", "content": "", "tool_calls": [{"type": "function",
                "function": {"name": "tap", "arguments": "{\"index\": 4}"}}]},
     "values": ["Ana Souza", "+55 11 91234 5678"], "goal": "Add Ana Souza to my contacts ...",
     "names": ["contacts"],
     ...any other keys (where the decision came from) are kept and ignored here}

`messages`, `tools` and `chat_template_kwargs` are the body of the chat request a client sends;
`target` is the reply in OpenAI's message shape (arguments as a JSON string, as on the wire;
an optional `reasoning_content` is the thinking before the call); the optional `values` are the
strings the episode's task was given, which training may disguise where the reply copies them
(`serving.training.disguise`), and the optional `goal` is the goal the user turns show, which
training may show with words left out (`serving.training.goal_word_dropout`), keeping the
optional `names` (the goal's names of apps and settings, in whatever case it writes them)
whole. The prompt is rendered the way the server renders it: with the checkpoint's chat
template, the tools as vLLM passes them to it, the generation prompt added. The completion is
what the model must write after that prompt, taken from the same template's rendering of the
assistant turn, so the tool-call syntax has one definition. Only completion tokens are scored.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import os
import random
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from serving import spark_format
from serving.checkpoint import chat_template_text
from serving.errors import ServingUsageError
from serving.training.demo import Demo
from serving.training.disguise import copied_values, disguise
from serving.training.goal_word_dropout import can_shorten, shorten_goal

ASSISTANT_OPENING = spark_format.BOS + "<|Bot|>" + spark_format.THINK_END
# Below this many demonstrations, tokenizing in worker processes costs more than it saves.
_PARALLEL_FROM = 2000


class DemoError(ServingUsageError, ValueError):
    """A demonstration file that cannot be used; reported in one line."""


def open_text(path: Path) -> IO[str]:
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def read_demo_lines(path: Path) -> list[str]:
    """The non-empty lines of a demonstration file (each checked when it is rendered)."""
    if not path.is_file():
        raise DemoError(f"no demonstration file {path}")
    with open_text(path) as file:
        lines = [line for line in file if line.strip()]
    if not lines:
        raise DemoError(f"{path} holds no demonstrations")
    return lines


def parse_demo(line: str, number: int) -> Demo:
    try:
        return Demo.model_validate_json(line)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "line"
        raise DemoError(f"demonstration {number}: {where}: {first['msg']}") from None


def served_tools(tools: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools as vLLM hands them to the template: `function` with name, description and
    parameters in that order, unset fields as null."""
    shaped = []
    for tool in tools:
        function = tool.get("function", tool)
        shaped.append(
            {
                "type": "function",
                "function": {
                    "name": function["name"],
                    "description": function.get("description"),
                    "parameters": function.get("parameters"),
                    **({"strict": function["strict"]} if "strict" in function else {}),
                },
            }
        )
    return shaped


def _template_turn(target: dict[str, Any]) -> dict[str, Any]:
    """The assistant message as the template reads it: arguments decoded from JSON, as vLLM
    does with the assistant turns of a conversation before rendering it."""
    calls = []
    for call in target.get("tool_calls") or []:
        function = dict(call.get("function", {}))
        if isinstance(function.get("arguments"), str):
            function["arguments"] = json.loads(function["arguments"] or "{}")
        calls.append({**call, "function": function})
    return {"role": "assistant", "content": target.get("content") or "", "tool_calls": calls}


class ChatRenderer:
    """Prompt and completion text of a demonstration, through a tokenizer's chat machinery."""

    def __init__(self, tokenizer: Any, template: str | None = None) -> None:
        self.tokenizer = tokenizer
        self.template = template or chat_template_text()
        self._system_turns: dict[str, list[int]] = {}

    def _render(self, messages: list[dict[str, Any]], demo: Demo, generation: bool) -> str:
        text = self.tokenizer.apply_chat_template(
            messages,
            tools=served_tools(demo.tools) or None,
            chat_template=self.template,
            add_generation_prompt=generation,
            tokenize=False,
            **demo.chat_template_kwargs,
        )
        assert isinstance(text, str)
        return text

    def encode_prompt(self, prompt: str) -> list[int]:
        """The prompt's tokens. The system turn (instructions and tools, about half of every
        prompt and the same in all of them) is tokenized once: it ends in the end-of-sentence
        token, which no merge crosses, so its tokens do not depend on what follows."""
        end = prompt.find(spark_format.EOS)
        if end < 0:
            return self.tokenizer.encode(prompt, add_special_tokens=False)
        head, tail = prompt[: end + len(spark_format.EOS)], prompt[end + len(spark_format.EOS) :]
        if head not in self._system_turns:
            self._system_turns[head] = self.tokenizer.encode(head, add_special_tokens=False)
        return [*self._system_turns[head], *self.tokenizer.encode(tail, add_special_tokens=False)]

    def render(self, demo: Demo) -> tuple[str, str]:
        prompt = self._render(demo.messages, demo, generation=True)
        history = self._render(demo.messages, demo, generation=False)
        full = self._render([*demo.messages, _template_turn(demo.target)], demo, generation=False)
        turn = full[len(history) :]
        if not full.startswith(history) or not turn.startswith(ASSISTANT_OPENING):
            raise DemoError("the chat template renders the assistant turn in an unexpected form")
        answer = turn[len(ASSISTANT_OPENING) :]
        if not demo.thinking:
            return prompt, answer
        reasoning = demo.target.get("reasoning_content") or ""
        return prompt, reasoning + spark_format.THINK_END + answer


def tokenizer_corpus(demos: Sequence[Demo]) -> Iterator[str]:
    """Text to train the BPE on: what the demonstrations say, and the template's own words."""
    yield chat_template_text()
    if demos:
        yield json.dumps(demos[0].tools, ensure_ascii=False)
    for demo in demos:
        for message in demo.messages:
            yield str(message.get("content") or "")
        yield json.dumps(demo.target, ensure_ascii=False)


@dataclass(frozen=True)
class Example:
    """One tokenized demonstration: prompt tokens, then the completion's (the scored ones)."""

    ids: array[int]  # 4 bytes a token, not a Python int's 36: a corpus holds millions of tokens
    prompt_tokens: int
    copies: bool = False  # the reply copies a value the task was given (it can be disguised)
    shortens: bool = False  # its goal has words that may be left out

    @property
    def length(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class Distinct:
    """Each distinct demonstration once (the same tokens, wherever it came from), with how
    often it occurs (its weight in training) and where it first occurs."""

    examples: list[Example]
    counts: list[int]
    sources: list[int]  # index of each one's first occurrence in what was deduplicated


def distinct_examples(encoded: Sequence[Example]) -> Distinct:
    firsts: dict[bytes, int] = {}
    distinct = Distinct([], [], [])
    for position, example in enumerate(encoded):
        digest = hashlib.blake2b(example.ids.tobytes(), digest_size=16)
        key = digest.digest() + example.prompt_tokens.to_bytes(4, "little")
        if key in firsts:
            distinct.counts[firsts[key]] += 1
            continue
        firsts[key] = len(distinct.examples)
        distinct.examples.append(example)
        distinct.counts.append(1)
        distinct.sources.append(position)
    return distinct


_worker_renderer: ChatRenderer | None = None


def _start_worker(tokenizer_dir: str) -> None:
    global _worker_renderer
    from transformers import AutoTokenizer

    _worker_renderer = ChatRenderer(AutoTokenizer.from_pretrained(tokenizer_dir))


@dataclass(frozen=True)
class Variation:
    """How one demonstration is shown in an epoch, each change drawn from `seed`: words left
    out of its goal, its copied values disguised."""

    seed: int
    shorten_goal: bool = False
    disguise: bool = False


def _encode_line(item: tuple[int, str, Variation | None]) -> Example:
    assert _worker_renderer is not None
    number, line, variation = item
    demo = parse_demo(line, number)
    if variation is not None:
        rng = random.Random(variation.seed)
        # the goal first: it is found by its text, which disguising may change
        if variation.shorten_goal:
            demo = shorten_goal(demo, rng) or demo
        if variation.disguise:
            demo = disguise(demo, rng) or demo
    return encode(_worker_renderer, demo)


def encode(renderer: ChatRenderer, demo: Demo) -> Example:
    """Prompt and completion are tokenized apart, as the server tokenizes a prompt and the
    model then writes the completion token by token."""
    prompt, completion = renderer.render(demo)
    prompt_ids = renderer.encode_prompt(prompt)
    completion_ids = renderer.tokenizer.encode(completion, add_special_tokens=False)
    return Example(
        ids=array("I", prompt_ids + completion_ids),
        prompt_tokens=len(prompt_ids),
        copies=bool(copied_values(demo)),
        shortens=can_shorten(demo),
    )


class LineEncoder:
    """Tokenizes demonstration lines with the tokenizer saved in `tokenizer_dir`, in worker
    processes started once (`workers` > 1) or in this one; a context manager."""

    def __init__(self, tokenizer_dir: Path, workers: int = 1) -> None:
        self._pool = (
            Pool(workers, initializer=_start_worker, initargs=(str(tokenizer_dir),))
            if workers > 1
            else None
        )
        if self._pool is None:
            _start_worker(str(tokenizer_dir))

    def encode(
        self, lines: Sequence[str], variations: Sequence[Variation | None] | None = None
    ) -> list[Example]:
        """Each line tokenized; with `variations` (one a line), shown as its variation says."""
        shown: Sequence[Variation | None] = (
            [None] * len(lines) if variations is None else variations
        )
        numbered = [(n, line, v) for n, (line, v) in enumerate(zip(lines, shown, strict=True), 1)]
        if self._pool is None:
            return [_encode_line(item) for item in numbered]
        return self._pool.map(_encode_line, numbered, chunksize=256)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()

    def __enter__(self) -> LineEncoder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def worker_count(lines: int) -> int:
    """Processes worth starting to tokenize this many lines."""
    return min(os.cpu_count() or 1, 16) if lines >= _PARALLEL_FROM else 1
