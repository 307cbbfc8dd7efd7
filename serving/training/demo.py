"""One demonstration as a line of a demonstration file holds it (`serving.training.data`
describes the file); what training reads and each way of showing it changes."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Demo(BaseModel):
    model_config = ConfigDict(extra="allow")

    messages: list[dict[str, Any]] = Field(min_length=1)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    chat_template_kwargs: dict[str, Any] = Field(default_factory=dict)
    target: dict[str, Any]
    # the values the episode's task was given (`serving.training.disguise` uses them)
    values: list[str] = Field(default_factory=list)
    # the goal as the user turns say it (`serving.training.goal_word_dropout` shortens it)
    goal: str | None = None
    # the goal's names of apps and settings, which shortening keeps whatever their case
    names: list[str] = Field(default_factory=list)

    @property
    def thinking(self) -> bool:
        return bool(self.chat_template_kwargs.get("enable_thinking", True))
