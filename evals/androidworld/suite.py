"""`phone-agent eval --suite androidworld`: AndroidWorld's own suite, checkpoints and scoring,
with our agent.

The same calls AndroidWorld's `run.py` makes, with our agent in place of theirs: connect to the
running emulator, build the suite from the task registry, run it with an incremental
checkpointer (a run directory given again resumes: finished task instances are skipped, and
new trajectories are numbered after the ones there) and let AndroidWorld score it.
AndroidWorld counts a task only when the agent said it is done.

`--tasks` takes the same globs and substrings as the simulator suite; they are resolved
against AndroidWorld's registry before the emulator is touched, since AndroidWorld itself
takes exact names only. The emulator connection is closed however the run ends.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path

from devices.errors import UsageError

INSTALL_HINT = (
    "android_world is not installed (it is not on PyPI): clone google-research/android_world, "
    "`pip install -r requirements.txt` and `python setup.py install` in it, and start an "
    "Android emulator (AVD AndroidWorldAvd, Pixel 6, API 33) with -grpc 8554; see the README"
)
_SUITE_FAMILY = "android_world"


class AndroidWorldMissing(UsageError, RuntimeError):
    """AndroidWorld is not installed, or the options ask for what it cannot run."""


def run_androidworld(args: argparse.Namespace) -> int:
    if args.policy != "llm":
        raise AndroidWorldMissing("eval --suite androidworld: only --policy llm runs there")
    if args.guards == "both":
        raise AndroidWorldMissing("eval --suite androidworld: --guards is on or off there")
    try:
        # The modules themselves, not just a folder of that name somewhere on the path.
        from android_world import checkpointer, registry, suite_utils
        from android_world.env import env_launcher

        from evals.androidworld.agent import PhoneAgent
    except ImportError as exc:
        raise AndroidWorldMissing(f"{INSTALL_HINT} ({exc})") from None

    from agent.commands.model_server import model_client_settings
    from agent.loop import RunSettings
    from agent.model_client import ModelClient
    from evals.androidworld.step import AgentStepper
    from evals.runner import select_names

    task_registry = registry.TaskRegistry().get_registry(family=_SUITE_FAMILY)
    # android_world takes exact names only, and checks them after the emulator is set up.
    tasks = select_names(args.tasks, sorted(task_registry)) if args.tasks else None
    run_dir: Path = args.run_dir or Path("runs") / f"androidworld-{datetime.now():%Y%m%d-%H%M%S}"
    client = ModelClient(model_client_settings(args))
    env = None
    try:
        model_name = client.model_name()
        launch_options = {"adb_path": args.adb_path} if args.adb_path else {}
        env = env_launcher.load_and_setup_env(
            console_port=args.console_port or 5554,
            emulator_setup=args.perform_emulator_setup,
            **launch_options,
        )
        suite = suite_utils.create_suite(
            task_registry,
            n_task_combinations=args.n_task_combinations or 1,
            seed=30 if args.task_random_seed is None else args.task_random_seed,
            tasks=tasks,
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
        try:
            episodes = suite_utils.run(
                suite,
                agent,
                checkpointer=checkpointer.IncrementalCheckpointer(str(run_dir)),
            )
        except KeyboardInterrupt:
            stepper.reset("interrupted by the user (Ctrl-C)")
            raise
        finally:
            stepper.reset("the run ended before the episode did")
    finally:
        if env is not None:
            env.close()
        client.close()
    scores = [e.get("is_successful") for e in episodes]
    judged = [float(s) for s in scores if isinstance(s, int | float) and s == s]
    print(
        f"{sum(judged):g} of {len(episodes)} task instances succeeded "
        f"({len(episodes) - len(judged)} errored); results in {run_dir}"
    )
    return 0
