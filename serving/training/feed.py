"""Training batches, epoch after epoch, with each epoch's varied demonstrations tokenized ahead.

Each epoch draws which demonstrations it shows varied (words left out of the goal, copied values
disguised: `serving.training.data.Variation`) and how they fall into batches. Re-encoding the
varied ones takes minutes on a large corpus; a thread does it a chunk of batches ahead of
training, in the tokenizer's worker processes, so that training starts at once and no epoch
waits for the tokenizer. Every draw comes from one random generator, used by that thread
alone, so a run repeats exactly.
"""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace

import torch

from serving.training.data import Example, LineEncoder, Variation

# Batches re-encoded at a time: small enough that an epoch's first ones come quickly, large
# enough to keep the tokenizer's worker processes busy.
CHUNK_BATCHES = 32
_PAD = 2  # Spark's pad id; padded positions are never scored and only follow real tokens


@dataclass(frozen=True)
class Shown:
    """How many demonstrations were shown varied, by the kind of change."""

    disguised: int = 0
    goals_shortened: int = 0

    def __add__(self, other: Shown) -> Shown:
        return Shown(self.disguised + other.disguised, self.goals_shortened + other.goals_shortened)


@dataclass(frozen=True)
class Corpus:
    """Tokenized demonstrations: the tokens all of them start with (the system prompt and the
    tools), computed once a batch, then each distinct one's own tokens, its weight and the
    demonstration line it came from."""

    prefix: list[int]
    examples: list[Example]
    counts: list[int]
    sources: list[int]

    @classmethod
    def build(
        cls, encoded: Sequence[Example], counts: Sequence[int], sources: Sequence[int]
    ) -> Corpus:
        first = encoded[0].ids
        # the prefix ends before any completion's first prediction
        shared = min(example.prompt_tokens for example in encoded) - 1
        for example in encoded:
            if example.ids[:shared] != first[:shared]:
                shared = next(i for i in range(shared) if example.ids[i] != first[i])
        rest = [
            replace(e, ids=e.ids[shared:], prompt_tokens=e.prompt_tokens - shared) for e in encoded
        ]
        return cls(list(first[:shared]), rest, list(counts), list(sources))

    def tokens(self, scored: bool = False) -> int:
        """Tokens in an epoch (counted as if every sequence carried the prefix)."""
        return sum(
            count * (e.length - e.prompt_tokens if scored else len(self.prefix) + e.length)
            for e, count in zip(self.examples, self.counts, strict=True)
        )


@dataclass(frozen=True)
class Batch:
    input_ids: torch.Tensor
    targets: torch.Tensor  # the completions' tokens
    context: torch.Tensor  # the prompts' own tokens (after the shared prefix)
    shown: Shown = Shown()  # its demonstrations shown varied


def group_by_length(corpus: Corpus, batch_tokens: int, rng: random.Random) -> list[list[int]]:
    """One epoch's batches as example indices: every example as often as it occurs, those of
    similar length together, each batch at most `batch_tokens` padded tokens after the prefix
    (as the examples are before any variation), in a shuffled order."""
    examples = corpus.examples
    repeated = [i for i, count in enumerate(corpus.counts) for _ in range(count)]
    order = sorted(repeated, key=lambda i: (examples[i].length, rng.random()))
    groups: list[list[int]] = []
    current: list[int] = []
    for index in order:
        longest = examples[index].length  # sorted: the newest is the longest
        if current and longest * (len(current) + 1) > batch_tokens:
            groups.append(current)
            current = []
        current.append(index)
    if current:
        groups.append(current)
    rng.shuffle(groups)
    return groups


def collate(examples: Sequence[Example], shown: Shown = Shown()) -> Batch:
    length = max(example.length for example in examples)
    input_ids = torch.full((len(examples), length), _PAD, dtype=torch.long)
    targets = torch.zeros((len(examples), length), dtype=torch.bool)
    context = torch.zeros((len(examples), length), dtype=torch.bool)
    for row, example in enumerate(examples):
        input_ids[row, : example.length] = torch.tensor(example.ids)
        targets[row, example.prompt_tokens : example.length] = True
        context[row, : example.prompt_tokens] = True
    return Batch(input_ids, targets, context, shown)


@dataclass(frozen=True)
class Showing:
    """How an epoch shows the corpus."""

    batch_tokens: int
    max_length: int  # a varied demonstration longer than this is shown as it was
    disguise_share: float = 0.0  # of the demonstrations that copy a value the task gave
    goal_dropout_share: float = 0.0  # of the demonstrations whose goal can be shortened


class EpochFeed:
    """Batches of `corpus`, epoch after epoch without end (`next`); `close` when done."""

    def __init__(
        self,
        corpus: Corpus,
        lines: Sequence[str],
        encoder: LineEncoder,
        showing: Showing,
        rng: random.Random,
        chunk_batches: int = CHUNK_BATCHES,
    ) -> None:
        self._corpus, self._lines, self._encoder = corpus, lines, encoder
        self._showing, self._rng, self._chunk = showing, rng, chunk_batches
        self._ready: queue.Queue[Batch | BaseException] = queue.Queue(maxsize=2 * chunk_batches)
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._produce, name="epoch-feed", daemon=True)
        self._thread.start()

    def next(self) -> Batch:
        item = self._ready.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def close(self) -> None:
        self._stopping.set()
        self._thread.join()

    def __enter__(self) -> EpochFeed:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _produce(self) -> None:
        try:
            while not self._stopping.is_set():
                variations = self._draw_variations()
                groups = group_by_length(self._corpus, self._showing.batch_tokens, self._rng)
                for start in range(0, len(groups), self._chunk):
                    chunk = groups[start : start + self._chunk]
                    varied = self._vary(
                        sorted({i for group in chunk for i in group if i in variations}),
                        variations,
                    )
                    for group in chunk:
                        if not self._hand_over(self._batch(group, varied, variations)):
                            return
        except BaseException as error:  # re-raised in the training thread
            self._hand_over(error)

    def _hand_over(self, item: Batch | BaseException) -> bool:
        """Queues `item` unless the feed is closing; whether it did."""
        while not self._stopping.is_set():
            try:
                self._ready.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _draw_variations(self) -> dict[int, Variation]:
        """Which examples this epoch shows varied, and how, each by its own draw."""
        showing, rng = self._showing, self._rng
        variations: dict[int, Variation] = {}
        for i, example in enumerate(self._corpus.examples):
            shorten = (
                showing.goal_dropout_share > 0
                and example.shortens
                and rng.random() < showing.goal_dropout_share
            )
            hide = (
                showing.disguise_share > 0
                and example.copies
                and rng.random() < showing.disguise_share
            )
            if shorten or hide:
                variations[i] = Variation(rng.getrandbits(62), shorten_goal=shorten, disguise=hide)
        return variations

    def _vary(self, chosen: list[int], variations: dict[int, Variation]) -> dict[int, Example]:
        """The chosen examples re-encoded as their variations show them (after the prefix);
        one that no longer starts with the shared prefix or grew too long keeps its tokens."""
        if not chosen:
            return {}
        corpus = self._corpus
        encoded = self._encoder.encode(
            [self._lines[corpus.sources[i]] for i in chosen], [variations[i] for i in chosen]
        )
        shared = len(corpus.prefix)
        varied = {}
        for index, example in zip(chosen, encoded, strict=True):
            # only user turns change, so the shared prefix holds (a check, not an assumption)
            if (
                example.ids[:shared].tolist() == corpus.prefix
                and example.length <= self._showing.max_length
            ):
                varied[index] = replace(
                    example, ids=example.ids[shared:], prompt_tokens=example.prompt_tokens - shared
                )
        return varied

    def _batch(
        self, group: list[int], varied: dict[int, Example], variations: dict[int, Variation]
    ) -> Batch:
        shown = Shown()
        examples = []
        for index in group:
            if index in varied:
                variation = variations[index]
                shown += Shown(int(variation.disguise), int(variation.shorten_goal))
                examples.append(varied[index])
            else:
                examples.append(self._corpus.examples[index])
        return collate(examples, shown)
