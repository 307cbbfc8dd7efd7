"""The training feed: epochs of batches, varied demonstrations tokenized ahead of training."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from evals.demos import export_demos, plan_demo_episodes
from serving.checkpoint import make_checkpoint
from serving.training.data import DemoError, LineEncoder, Variation, distinct_examples
from serving.training.feed import Batch, Corpus, EpochFeed, Showing, group_by_length
from simulator.tasks import TASKS_BY_NAME


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny", "tiny", seed=3)


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Contacts typed from the goal: values to disguise, goals long enough to shorten; one
    decision recorded twice, so that an example occurs twice an epoch."""
    path = tmp_path_factory.mktemp("contacts") / "contacts.jsonl"
    export_demos(plan_demo_episodes([TASKS_BY_NAME["ContactsAddContact"]], [100, 101], "off"), path)
    recorded = path.read_text().splitlines()
    return [*recorded, recorded[0]]


@pytest.fixture(scope="module")
def corpus(tokenizer_dir: Path, lines: list[str]) -> Corpus:
    with LineEncoder(tokenizer_dir) as encoder:
        distinct = distinct_examples(encoder.encode(lines))
    return Corpus.build(distinct.examples, distinct.counts, distinct.sources)


def _rows(batch: Batch) -> list[tuple[int, ...]]:
    """Each row's tokens without its padding."""
    lengths = (batch.targets | batch.context).sum(1).tolist()
    return [tuple(row[:n]) for row, n in zip(batch.input_ids.tolist(), lengths, strict=True)]


def _epoch(feed: EpochFeed, corpus: Corpus, batch_tokens: int) -> list[Batch]:
    return [feed.next() for _ in group_by_length(corpus, batch_tokens, random.Random(0))]


def test_each_epoch_shows_every_demonstration_as_often_as_recorded(
    tokenizer_dir: Path, lines: list[str], corpus: Corpus
) -> None:
    showing = Showing(batch_tokens=1200, max_length=4096)
    expected = Counter(
        {tuple(e.ids): n for e, n in zip(corpus.examples, corpus.counts, strict=True)}
    )
    assert max(expected.values()) == 2
    with (
        LineEncoder(tokenizer_dir) as encoder,
        EpochFeed(corpus, lines, encoder, showing, random.Random(1), chunk_batches=2) as feed,
    ):
        epochs = [_epoch(feed, corpus, showing.batch_tokens) for _ in range(2)]
    for batches in epochs:
        assert Counter(row for batch in batches for row in _rows(batch)) == expected
        assert all(batch.input_ids.numel() <= showing.batch_tokens for batch in batches)
        assert all(batch.shown.disguised == batch.shown.goals_shortened == 0 for batch in batches)
    # a new order each epoch
    assert [_rows(b) for b in epochs[0]] != [_rows(b) for b in epochs[1]]


def test_a_varied_demonstration_is_shown_as_its_variation_encodes_it(
    tokenizer_dir: Path, lines: list[str], corpus: Corpus
) -> None:
    showing = Showing(batch_tokens=1200, max_length=4096, disguise_share=1.0)
    rng = random.Random(4)
    copying = [i for i, e in enumerate(corpus.examples) if e.copies]
    assert copying
    with LineEncoder(tokenizer_dir) as encoder:
        with EpochFeed(corpus, lines, encoder, showing, random.Random(4), chunk_batches=1) as feed:
            batches = _epoch(feed, corpus, showing.batch_tokens)
        # the feed's first draws, made again: for each copying example, whether to disguise
        # it (always, at a share of one), then its variation's seed
        seeds = {}
        for index in copying:
            assert rng.random() < 1.0
            seeds[index] = rng.getrandbits(62)
        disguised = encoder.encode(
            [lines[corpus.sources[i]] for i in seeds],
            [Variation(seed, disguise=True) for seed in seeds.values()],
        )
    rows = Counter(row for batch in batches for row in _rows(batch))
    prefix = len(corpus.prefix)
    for index, example in zip(seeds, disguised, strict=True):
        assert rows[tuple(example.ids[prefix:])] == corpus.counts[index]
        assert tuple(example.ids) != tuple(corpus.prefix) + tuple(corpus.examples[index].ids)
    assert sum(batch.shown.disguised for batch in batches) == sum(corpus.counts[i] for i in copying)


def test_a_demonstration_that_cannot_be_varied_stops_training_with_its_error(
    tokenizer_dir: Path, lines: list[str], corpus: Corpus
) -> None:
    # the lines changed on disk between tokenizing and an epoch's variation
    broken = ["{not json"] * len(lines)
    showing = Showing(batch_tokens=1200, max_length=4096, disguise_share=1.0)
    with (
        LineEncoder(tokenizer_dir) as encoder,
        EpochFeed(corpus, broken, encoder, showing, random.Random(0)) as feed,
        pytest.raises(DemoError),
    ):
        for _ in range(10 * len(lines)):
            feed.next()


def test_closing_a_feed_that_is_ahead_of_training_returns_at_once(
    tokenizer_dir: Path, lines: list[str], corpus: Corpus
) -> None:
    showing = Showing(batch_tokens=1200, max_length=4096)
    with LineEncoder(tokenizer_dir) as encoder:
        feed = EpochFeed(corpus, lines, encoder, showing, random.Random(0), chunk_batches=1)
        feed.next()
        time.sleep(0.3)  # its queue is full by now
        # A producer blocked on its full queue would hold close() for ever; the bound only
        # turns that hang into a failure, far above what closing costs on a busy machine.
        closer = threading.Thread(target=feed.close)
        closer.start()
        closer.join(timeout=60)
        assert not closer.is_alive(), "close() waited for the producer, which waits for room"
