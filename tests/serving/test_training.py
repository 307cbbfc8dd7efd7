"""`phone-agent train`: the trainable Spark2_5 module, the demonstration rendering, a CPU run."""

from __future__ import annotations

import io
import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

import torch
from safetensors.torch import load_file
from transformers import AutoTokenizer

from evals.demos import export_demos, plan_demo_episodes
from serving.checkpoint import SHAPES, SparkConfig, make_checkpoint, tensor_shapes
from serving.quantization.hardware import probe_hardware
from serving.reference_forward import spark_logits
from serving.spark_format import BOS, EOS, split_tool_calls
from serving.training.data import ChatRenderer, LineEncoder, distinct_examples, encode
from serving.training.demo import Demo
from serving.training.model import load_checkpoint, parameter_count
from serving.training.train import (
    POLICY_SHAPE,
    MatmulPrecision,
    TrainSettings,
    config_for,
    learning_rate,
    matmul_precision,
    train,
)
from simulator.tasks import TASKS_BY_NAME
from tests.support.cli_process import run_cli
from tests.support.paths import REPO_ROOT


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny", "tiny", seed=3)


@pytest.fixture(scope="module")
def demos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real demonstrations: the oracle turning Wi-Fi on, in both thinking modes."""
    path = tmp_path_factory.mktemp("demos") / "demos.jsonl"
    task = TASKS_BY_NAME["SystemWifiTurnOn"]
    planned = plan_demo_episodes([task], [100], "on") + plan_demo_episodes([task], [101], "off")
    # the task's first two wordings: six steps learn the few sentences they share
    episodes = [replace(episode, phrasing=episode.seed % 2) for episode in planned]
    summary = export_demos(episodes, path)
    assert summary.decisions >= 4 and not summary.failed_episodes
    return path


def test_batched_module_matches_the_reference_forward(tiny_dir: Path) -> None:
    config = SparkConfig.load(tiny_dir)
    weights = load_file(str(tiny_dir / "model.safetensors"))
    module = load_checkpoint(tiny_dir)
    generator = torch.Generator().manual_seed(0)
    # Both longer than the sliding window; the shorter one right-padded.
    long, short = config.sliding_window * 3, config.sliding_window + 9
    first = torch.randint(10, config.vocab_size, (long,), generator=generator)
    second = torch.randint(10, config.vocab_size, (short,), generator=generator)
    batch = torch.full((2, long), 2)
    batch[0], batch[1, :short] = first, second
    with torch.no_grad():
        logits = module(batch)
    torch.testing.assert_close(
        logits[0], spark_logits(config, weights, first.tolist()), atol=2e-5, rtol=1e-4
    )
    torch.testing.assert_close(
        logits[1, :short], spark_logits(config, weights, second.tolist()), atol=2e-5, rtol=1e-4
    )


def test_a_shared_prefix_computed_once_gives_the_same_states_and_loss(tiny_dir: Path) -> None:
    module = load_checkpoint(tiny_dir)
    window = module.config.sliding_window
    generator = torch.Generator().manual_seed(1)
    prefix = torch.randint(10, 1000, (window + 20,), generator=generator)
    own = [torch.randint(10, 1000, (n,), generator=generator) for n in (window, 9)]
    whole = torch.full((2, len(prefix) + window), 2)
    rest = torch.full((2, window), 2)
    targets = torch.zeros(rest.shape, dtype=torch.bool)
    for row, tokens in enumerate(own):
        whole[row, : len(prefix) + len(tokens)] = torch.cat([prefix, tokens])
        rest[row, : len(tokens)] = tokens
        targets[row, 2 : len(tokens)] = True
    whole_targets = torch.cat([torch.zeros((2, len(prefix)), dtype=torch.bool), targets], 1)
    with torch.no_grad():
        torch.testing.assert_close(
            module.hidden_states(rest, prefix)[1, :9],
            module.hidden_states(whole)[1, len(prefix) : len(prefix) + 9],
        )
        torch.testing.assert_close(
            module.target_loss(rest, targets, prefix), module.target_loss(whole, whole_targets)
        )
        # two sets of scored tokens from one forward pass: each as scored alone
        others = ~targets & (rest != 2)
        both = module.target_losses(rest, [targets, others], prefix)
        torch.testing.assert_close(both[0], module.target_loss(rest, targets, prefix))
        torch.testing.assert_close(both[1], module.target_loss(rest, others, prefix))


def test_policy_shape_fits_every_weight_build_and_the_cpu_attention_kernel() -> None:
    config = config_for(POLICY_SHAPE)
    assert parameter_count(config) <= 16_000_000
    for name, shape in tensor_shapes(config):
        # g_proj has one row per head and stays unquantized in every build
        if len(shape) == 2 and not name.endswith("g_proj.weight"):
            assert all(size % 128 == 0 for size in shape), (name, shape)
    assert config.layer_types == ["sliding_attention"] * 3 + ["full_attention"] + [
        "sliding_attention"
    ] * 3 + ["full_attention"]
    assert config.sliding_window == 512 and config.tie_word_embeddings
    attention = pytest.importorskip("vllm.v1.attention.backends.cpu_attn")
    assert config.head_dim in attention.CPUAttentionBackend.get_supported_head_sizes()


def test_completion_is_the_templates_assistant_turn(demos: Path, tiny_dir: Path) -> None:
    renderer = ChatRenderer(AutoTokenizer.from_pretrained(str(tiny_dir)))
    lines = [Demo.model_validate_json(line) for line in demos.read_text().splitlines()]
    for demo in lines:
        prompt, completion = renderer.render(demo)
        call = demo.target["tool_calls"][0]["function"]
        assert prompt.startswith(BOS + "<|System|>") and completion.endswith(EOS)
        # with thinking on, the oracle's sentence is the thinking, closed before the call
        thinking = demo.target.get("reasoning_content", "")
        said = thinking + "</think>" if demo.thinking else ""
        if demo.thinking:
            assert thinking and prompt.endswith("<|Bot|><think>")
        else:
            assert not thinking and prompt.endswith("<|Bot|></think>")
        assert completion.startswith(said + demo.target["content"] + "<tool_call>")
        # The serving parser reads back exactly the oracle's call from the completion.
        schemas = {t["function"]["name"]: t["function"]["parameters"] for t in demo.tools}
        calls, rest = split_tool_calls(completion.removesuffix(EOS), schemas)
        assert rest == said + demo.target["content"]
        assert [(c.name, c.arguments) for c in calls] == [
            (call["name"], json.loads(call["arguments"]))
        ]
        assert demo.messages[-1]["content"] in prompt


def test_prompt_tokens_match_tokenizing_the_whole_prompt(demos: Path, tiny_dir: Path) -> None:
    # The shared system turn is tokenized once and reused; the server tokenizes whole prompts.
    renderer = ChatRenderer(AutoTokenizer.from_pretrained(str(tiny_dir)))
    for line in demos.read_text().splitlines():
        demo = Demo.model_validate_json(line)
        prompt, _ = renderer.render(demo)
        example = encode(renderer, demo)
        whole = renderer.tokenizer.encode(prompt, add_special_tokens=False)
        assert list(example.ids[: example.prompt_tokens]) == whole


@pytest.mark.parametrize(
    ("goal", "value"),
    [
        ('Reply to Björn Åström with "Meet at 5:45"', "Björn Åström"),
        ('Reply to Björn Åström with "Meet at 5:45"', "Meet at 5:45"),
        ("Call +49 151 2045678 now", "2045678"),
        ("Set an alarm for 07:35.", "07:35"),
    ],
)
def test_a_value_copied_from_the_goal_is_the_same_tokens_in_the_call(
    tiny_dir: Path, goal: str, value: str
) -> None:
    # The policy copies names, numbers and texts token by token; a second spelling of the same
    # value (a leading space, a merged group of digits) would have to be learnt per value.
    tokenizer = AutoTokenizer.from_pretrained(str(tiny_dir))
    in_goal = tokenizer.encode(goal, add_special_tokens=False)
    in_call = tokenizer.encode(f"<arg_value>{value}</arg_value>", add_special_tokens=False)[1:-1]
    assert tokenizer.decode(in_call) == value
    assert any(in_goal[i : i + len(in_call)] == in_call for i in range(len(in_goal)))


def _six_steps(**settings: Any) -> TrainSettings:
    """A run on the Wi-Fi demonstrations that learns within six steps of the tiny shape."""
    return TrainSettings(
        steps=6, seed=5, batch_tokens=600, warmup_steps=1, learning_rate=4e-3, log_every=1,
        **settings,
    )  # fmt: skip


def test_matrix_products_run_in_bf16_only_where_the_hardware_multiplies_it() -> None:
    cpu, gpu = torch.device("cpu"), torch.device("cuda")
    zen4 = ["avx2", "fma", "avx512f", "avx512bw", "avx512_bf16", "avx512_vnni"]
    sapphire_rapids = [*zen4, "amx_tile", "amx_bf16", "amx_int8"]
    zen1 = ["avx2", "fma"]
    assert matmul_precision(cpu, zen4) == matmul_precision(cpu, sapphire_rapids) == "bf16"
    assert matmul_precision(cpu, zen1) == matmul_precision(cpu, []) == "fp32"
    assert matmul_precision(gpu, zen1) == "bf16"


# None: the machine's own choice; both precisions also run by name, native or emulated.
@pytest.mark.slow
@pytest.mark.parametrize("matmuls", [None, "bf16", "fp32"])
def test_a_short_cpu_run_learns_repeats_and_writes_a_checkpoint(
    demos: Path, tmp_path: Path, matmuls: MatmulPrecision | None
) -> None:
    # The system prompt and tools every demonstration shares are computed once a step.
    settings = _six_steps(matmuls=matmuls)
    first = train(demos, tmp_path / "a", settings, shape=SHAPES["tiny"])
    again = train(demos, tmp_path / "b", settings, shape=SHAPES["tiny"])
    losses = [point.loss for point in first.losses]
    assert sum(losses[-2:]) < sum(losses[:2]) - 1.0, losses
    assert losses == [point.loss for point in again.losses]

    out = tmp_path / "a"
    assert {p.name for p in out.iterdir()} >= {
        "config.json",
        "generation_config.json",
        "model.safetensors",
        "tokenizer.json",
        "tokenizer_config.json",
        "chat_template.jinja",
        "training_log.json",
    }
    config = SparkConfig.load(out)
    written = {
        name: tuple(t.shape) for name, t in load_file(str(out / "model.safetensors")).items()
    }
    assert written == dict(tensor_shapes(config))
    tokenizer = AutoTokenizer.from_pretrained(str(out))
    assert tokenizer.convert_tokens_to_ids([BOS, EOS, "<think>", "</think>"]) == [0, 1, 3, 4]
    assert len(tokenizer.encode("<tool_call>", add_special_tokens=False)) == 1
    log = json.loads((out / "training_log.json").read_text())
    assert log["demonstrations"] >= 4 and log["shared_prefix_tokens"] > 500
    assert 0 <= log["seconds_before_training"] <= log["seconds"]
    chosen = matmul_precision(torch.device("cpu"), probe_hardware().cpu_flags)
    assert log["matmuls"] == (matmuls or chosen)


def test_a_decision_recorded_twice_is_one_example_weighted_twice(
    demos: Path, tiny_dir: Path
) -> None:
    # Parameterless tasks play the same decisions for every seed; where it came from (task,
    # seed, step) is not part of what the model learns.
    lines = demos.read_text().splitlines()
    relabelled = json.dumps({**json.loads(lines[0]), "seed": 999, "step": 42})
    with LineEncoder(tiny_dir) as encoder:
        encoded = encoder.encode([*lines, relabelled, lines[1]])
    distinct = distinct_examples(encoded)
    assert len(distinct.examples) == len(lines)
    assert distinct.counts[:2] == [2, 2] and set(distinct.counts[2:]) <= {1}
    assert distinct.examples[0] is encoded[0]
    assert distinct.sources == list(range(len(lines)))


@pytest.fixture(scope="module")
def contact_demos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Contacts typed from the goal: names and numbers to copy, goals long enough to shorten."""
    path = tmp_path_factory.mktemp("contacts") / "contacts.jsonl"
    task = TASKS_BY_NAME["ContactsAddContact"]
    export_demos(plan_demo_episodes([task], [100, 101], "off"), path)
    return path


def _two_epochs(path: Path, settings: TrainSettings, scratch: Path) -> TrainSettings:
    """`settings` with as many steps as two epochs of `path` take (a one-step run tells)."""
    probe = train(
        path, scratch / "probe", settings.model_copy(update={"steps": 1}), shape=SHAPES["tiny"]
    )
    assert probe.steps_per_epoch is not None
    return settings.model_copy(update={"steps": 2 * probe.steps_per_epoch})


@pytest.mark.slow
@pytest.mark.timeout(1200)  # five training runs of two epochs: minutes of CPU
def test_each_epoch_shows_new_values_and_goals_with_words_left_out(
    contact_demos: Path, tmp_path: Path
) -> None:
    # With every copying demonstration disguised and every goal long enough shortened, each
    # epoch trains on new names and numbers and on other sentences; the run still repeats
    # exactly, and without either variation it trains on other text.
    path = contact_demos
    settings = _two_epochs(
        path,
        TrainSettings(
            seed=2,
            batch_tokens=1200,
            warmup_steps=1,
            log_every=1,
            disguise_share=1.0,
            goal_dropout_share=1.0,
        ),
        tmp_path,
    )
    first = train(path, tmp_path / "a", settings, shape=SHAPES["tiny"])
    again = train(path, tmp_path / "b", settings, shape=SHAPES["tiny"])
    assert first.copying_demonstrations == 6  # first name, last name, phone; two seeds
    assert first.epochs == 2 and first.disguised == 6 * 2
    assert first.goals_shortened == first.distinct_demonstrations * 2
    assert [p.loss for p in first.losses] == [p.loss for p in again.losses]
    for share, count in (
        ("disguise_share", "disguised"),
        ("goal_dropout_share", "goals_shortened"),
    ):
        without = train(
            path,
            tmp_path / share,
            settings.model_copy(update={share: 0.0}),
            shape=SHAPES["tiny"],
        )
        assert getattr(without, count) == 0 and without.losses[-1].loss != first.losses[-1].loss


@pytest.mark.slow
def test_a_run_can_also_learn_the_prompts_own_tokens(demos: Path, tmp_path: Path) -> None:
    # The prompts' tokens are scored beside the completions (a dense signal for copying); the
    # logged loss stays the completions' own, so runs with and without it compare.
    settings = _six_steps(context_loss_weight=0.5)
    log = train(demos, tmp_path / "ctx", settings, shape=SHAPES["tiny"])
    context = [point.context_loss for point in log.losses]
    assert all(value is not None for value in context)
    assert sum(context[-2:]) < sum(context[:2]) - 1.0, context  # type: ignore[arg-type]
    assert all(
        point.context_loss is None
        for point in train(
            demos,
            tmp_path / "plain",
            settings.model_copy(update={"context_loss_weight": 0.0}),
            shape=SHAPES["tiny"],
        ).losses
    )


def test_a_run_stopped_by_its_time_limit_still_ends_its_learning_rate_schedule() -> None:
    # A lent GPU is timed: a run planned for more steps than fit must not stop at a high rate.
    settings = TrainSettings(steps=10_000, warmup_steps=10, learning_rate=1e-3, time_limit_s=60)
    assert learning_rate(5, settings, time_used=0.9) == pytest.approx(6e-4)  # warm-up by step
    assert learning_rate(100, settings) > 9.9e-4  # early in the step schedule
    assert learning_rate(100, settings, time_used=0.5) == pytest.approx(5.5e-4)
    assert learning_rate(100, settings, time_used=1.0) == pytest.approx(1e-4)
    # whichever of steps and time is further along drives the schedule
    assert learning_rate(10_000, settings, time_used=0.1) == pytest.approx(1e-4)


@pytest.mark.slow
def test_a_run_saving_as_it_goes_always_leaves_a_whole_checkpoint(
    demos: Path, tmp_path: Path
) -> None:
    # A run killed before its end (a lent machine taken back) keeps the checkpoint of its
    # last save: complete, loadable, and saying how far it got.
    out = tmp_path / "run"
    snapshots: list[tuple[int, int, float]] = []

    def look_at_the_last_save(step: int, loss: float, rate: float) -> None:
        latest = out / "latest"
        if latest.is_dir():
            log = json.loads((latest / "training_log.json").read_text())
            embedding = load_checkpoint(latest).checkpoint_tensors()["model.embedding.weight"]
            AutoTokenizer.from_pretrained(str(latest))
            snapshots.append((step, log["steps_done"], float(embedding.sum())))

    settings = TrainSettings(
        steps=4, seed=5, batch_tokens=600, warmup_steps=1, log_every=1, save_every_s=1e-6
    )
    train(demos, out, settings, shape=SHAPES["tiny"], on_step=look_at_the_last_save)
    # a step's loss is read once the next step is under way, after the save that follows it
    assert [(step, done) for step, done, _ in snapshots] == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert len({weight for _, _, weight in snapshots}) == 4  # each save holds new weights
    log = json.loads((out / "training_log.json").read_text())
    assert [point["step"] for point in log["losses"]] == [1, 2, 3, 4]  # none lost at the end
    assert not any(p.name.startswith("latest") for p in out.iterdir())
    assert (out / "model.safetensors").is_file()


def test_a_logged_run_shows_progress_each_minute_though_far_from_its_planned_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A run planned for 100,000 steps and stopped by its time limit never reaches 5% of them;
    # its log (no terminal) must still say how it goes.
    from rich.console import Console

    from agent.commands import train as train_command

    clock = [1000.0]
    monkeypatch.setattr(train_command.time, "monotonic", lambda: clock[0])
    log = io.StringIO()
    with train_command._StepProgress(Console(file=log), 100_000) as progress:
        for step in range(1, 301):
            clock[0] += 1.0  # a step a second
            progress.step(step, 2.0 / step, 1e-4)
    lines = log.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "step 60/100000",
        "step 120/100000",
        "step 180/100000",
        "step 240/100000",
        "step 300/100000",
    ]


@pytest.mark.slow
def test_train_command_reports_bad_input_in_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    missing = run_cli("train", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "o"), env=env)
    assert missing.returncode == 2
    assert missing.stderr.strip().count("\n") == 0 and "none.jsonl" in missing.stderr
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"messages": []}\n')
    bad = run_cli("train", str(broken), "--out", str(tmp_path / "o2"), env=env)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines()[-1] == (
        "error: demonstration 1: messages: List should have at least 1 item after validation, not 0"
    )


@pytest.mark.slow
def test_train_command_takes_the_matrix_precision_asked_for(demos: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    out = tmp_path / "fp32"
    done = run_cli(
        "train", str(demos), "--out", str(out), "--device", "cpu", "--steps", "2",
        "--batch-tokens", "600", "--matmuls", "fp32", env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "with fp32 matrix products" in done.stderr
    assert json.loads((out / "training_log.json").read_text())["matmuls"] == "fp32"


def test_the_shipped_policy_is_served_by_name_and_fits_the_repository() -> None:
    from serving.launcher import resolve_model

    model = resolve_model("sim", lambda stage: None)
    assert (model.served_name, model.path.name) == ("sim", "sim")
    assert SparkConfig.load(model.path) == config_for(POLICY_SHAPE)
    sizes = [path.stat().st_size for path in model.path.iterdir()]
    assert max(sizes) < 16 << 20 and sum(sizes) <= 32 << 20
    tokenizer = AutoTokenizer.from_pretrained(str(model.path))
    assert tokenizer.convert_tokens_to_ids([BOS, EOS, "<think>", "</think>"]) == [0, 1, 3, 4]
