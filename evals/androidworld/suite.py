"""`phone-agent eval --suite androidworld`: AndroidWorld's own suite, checkpoints and scoring,
with our agent.

The same calls AndroidWorld's `run.py` makes, with our agent in place of theirs: connect to the
running emulator, build the suite from the task registry, run it with an incremental
checkpointer (a run directory given again resumes: finished task instances are skipped, and
new trajectories are numbered after the ones there) and let AndroidWorld score it.
AndroidWorld counts a task only when the agent said it is done.

Task patterns are the same globs and substrings as the simulator suite's; they are resolved
against AndroidWorld's registry before the emulator is touched, since AndroidWorld itself
takes exact names only. The emulator connection is closed however the run ends.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, PositiveInt

from devices.errors import UsageError

if TYPE_CHECKING:
    from agent.model_client import ClientSettings

INSTALL_HINT = (
    "android_world is not installed (it is not on PyPI): clone google-research/android_world, "
    "`pip install -r requirements.txt` and `python setup.py install` in it, and start an "
    "Android emulator (AVD AndroidWorldAvd, Pixel 6, API 33) with -grpc 8554; see the README"
)
_SUITE_FAMILY = "android_world"


class AndroidWorldMissing(UsageError, RuntimeError):
    """AndroidWorld is not installed."""


class SuiteOptions(BaseModel):
    """Which task instances to play, on which emulator, and whether the loop's guards are on;
    the defaults are AndroidWorld's `run.py`'s."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task_patterns: str | None = None  # comma-separated names, globs or substrings; None: all
    n_task_combinations: PositiveInt = 1
    task_random_seed: int = 30
    console_port: PositiveInt = 5554
    adb_path: str | None = None  # None: the Android SDK's
    perform_emulator_setup: bool = False
    guards: bool = True


def run_androidworld(client_settings: ClientSettings, run_dir: Path, options: SuiteOptions) -> int:
    """Play AndroidWorld's suite with the model that `client_settings` reaches; checkpoints and
    trajectories go in `run_dir`, and one given again resumes there."""
    try:
        # The modules themselves, not just a folder of that name somewhere on the path.
        from android_world import checkpointer, registry, suite_utils
        from android_world.env import env_launcher

        from evals.androidworld.agent import PhoneAgent
    except ImportError as exc:
        raise AndroidWorldMissing(f"{INSTALL_HINT} ({exc})") from None

    from agent.loop import RunSettings
    from agent.model_client import ModelClient
    from evals.androidworld.step import AgentStepper
    from evals.runner import select_names

    task_registry = registry.TaskRegistry().get_registry(family=_SUITE_FAMILY)
    # android_world takes exact names only, and checks them after the emulator is set up.
    tasks = (
        select_names(options.task_patterns, sorted(task_registry))
        if options.task_patterns
        else None
    )
    client = ModelClient(client_settings)
    env = None
    try:
        model_name = client.model_name()
        launch_options = {"adb_path": options.adb_path} if options.adb_path else {}
        env = env_launcher.load_and_setup_env(
            console_port=options.console_port,
            emulator_setup=options.perform_emulator_setup,
            **launch_options,
        )
        suite = suite_utils.create_suite(
            task_registry,
            n_task_combinations=options.n_task_combinations,
            seed=options.task_random_seed,
            tasks=tasks,
        )
        suite.suite_family = _SUITE_FAMILY
        stepper = AgentStepper(
            client,
            run_dir / "trajectories",
            settings=RunSettings(),
            guards=options.guards,
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
