"""`phone-agent eval --suite androidworld`: AndroidWorld's own suite, checkpoints and scoring,
with our agent.

The same calls AndroidWorld's `run.py` makes, with our agent in place of theirs: connect to the
running emulator, build the suite from the task registry, run it with an incremental
checkpointer (a run directory given again resumes: finished task instances are skipped) and
let AndroidWorld score it. AndroidWorld counts a task only when the agent said it is done.
"""

from __future__ import annotations

import argparse
import importlib.util
from datetime import datetime
from pathlib import Path

INSTALL_HINT = (
    "android_world is not installed (it is not on PyPI): clone google-research/android_world, "
    "`pip install -r requirements.txt` and `python setup.py install` in it, and start an "
    "Android emulator (AVD AndroidWorldAvd, Pixel 6, API 33) with -grpc 8554; see the README"
)
_SUITE_FAMILY = "android_world"


class AndroidWorldMissing(RuntimeError):
    exit_code = 2


def run_androidworld(args: argparse.Namespace) -> int:
    if importlib.util.find_spec("android_world") is None:
        raise AndroidWorldMissing(INSTALL_HINT)
    if args.policy != "llm":
        raise AndroidWorldMissing("eval --suite androidworld: only --policy llm runs there")
    if args.guards == "both":
        raise AndroidWorldMissing("eval --suite androidworld: --guards is on or off there")

    from android_world import checkpointer, registry, suite_utils
    from android_world.env import env_launcher

    from agent.loop import RunSettings
    from agent.model_client import ClientSettings, ModelClient
    from evals.androidworld.agent import PhoneAgent
    from evals.androidworld.step import AgentStepper

    run_dir: Path = args.run_dir or Path("runs") / f"androidworld-{datetime.now():%Y%m%d-%H%M%S}"
    client = ModelClient(
        ClientSettings(
            **({"base_url": args.base_url} if args.base_url else {}),
            model=args.model,
            thinking=args.thinking == "on",
            think_budget=args.think_budget,
        )
    )
    try:
        model_name = client.model_name()
        launch_options = {"adb_path": args.adb_path} if args.adb_path else {}
        env = env_launcher.load_and_setup_env(
            console_port=args.console_port or 5554,
            emulator_setup=args.perform_emulator_setup,
            **launch_options,
        )
        suite = suite_utils.create_suite(
            registry.TaskRegistry().get_registry(family=_SUITE_FAMILY),
            n_task_combinations=args.n_task_combinations or 1,
            seed=30 if args.task_random_seed is None else args.task_random_seed,
            tasks=[t.strip() for t in args.tasks.split(",")] if args.tasks else None,
        )
        suite.suite_family = _SUITE_FAMILY
        stepper = AgentStepper(
            client,
            run_dir / "trajectories",
            settings=RunSettings(),
            guards=args.guards == "on",
            model_name=model_name,
        )
        agent = PhoneAgent(env, stepper)
        print(f"AndroidWorld with {model_name}; checkpoints and trajectories in {run_dir}")
        episodes = suite_utils.run(
            suite,
            agent,
            checkpointer=checkpointer.IncrementalCheckpointer(str(run_dir)),
        )
        env.close()
    finally:
        client.close()
    scores = [e.get("is_successful") for e in episodes]
    judged = [float(s) for s in scores if isinstance(s, int | float) and s == s]
    print(
        f"{sum(judged):g} of {len(episodes)} task instances succeeded "
        f"({len(episodes) - len(judged)} errored); results in {run_dir}"
    )
    return 0
