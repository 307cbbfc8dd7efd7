"""Faults a real phone shows now and then, injected on purpose (off unless configured).

Every draw comes from the simulator's seeded random generator, so a run with the same seed,
the same faults and the same actions fails in the same places.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

DUMP_ERRORS = (
    "ERROR: could not get idle state.",
    "ERROR: null root node returned by UiTestAutomationBridge.",
)


class FaultConfig(BaseModel):
    """Probabilities (0-1) of each fault; all zero by default."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dump_failure: float = Field(default=0.0, ge=0, le=1)
    """A screen dump fails with one of uiautomator's errors."""
    mid_transition: float = Field(default=0.0, ge=0, le=1)
    """After a screen change, the next dump catches the new window still sliding in."""
    slow_transition: float = Field(default=0.0, ge=0, le=1)
    """After a screen change, the next dumps still show the previous screen."""
    slow_transition_dumps: int = Field(default=1, ge=1, le=10)
    popup: float = Field(default=0.0, ge=0, le=1)
    """Launching an app brings up an unrequested dialog (rate this app, low battery)."""

    def any(self) -> bool:
        return any((self.dump_failure, self.mid_transition, self.slow_transition, self.popup))
