"""Where decisions come from: the Policy protocol and the OpenAI-compatible model client.

The loop asks a Policy for one reply per step. The model client is the Policy that talks to a
model server (the bundled vLLM server or any OpenAI-compatible one); evals add others (oracle,
replay, faulty) against the same two types, DecisionRequest and ModelReply.

Thinking budget. With thinking on, the chat request is capped at `think_budget` tokens. When the
reply stops there inside an unclosed think block (no `</think>`, hence no call), the client closes
the block itself and lets the model answer:

1. continuation: the server renders the very same conversation with its own chat template
   (`POST /tokenize` with `messages`, `tools` and `chat_template_kwargs`, which vLLM offers),
   the partial reasoning plus `</think>` is tokenized after it, and `POST /v1/completions`
   continues from those token ids. Rendering on the server keeps the prompt byte-identical to
   what the chat endpoint built, whatever the model's template. Special tokens are kept in the
   output so a `<tool_call>` block survives for the parser.
2. thinking off: if the server has no `/tokenize`, or the continuation holds no tool call, the
   step is asked again with thinking off; the user turn then ends with a one-line summary of
   the reasoning that was cut.

ModelReply.path records which of `chat`, `continuation` or `thinking_off` produced the reply.

Whatever the server sends is checked before use: each body is decoded as UTF-8 JSON (bytes
that are not UTF-8, and lone surrogates such as `\\ud800`, become U+FFFD) and validated against
the few fields the agent reads. A body that fails (not JSON, `null`, no choices, a `message`
that is `null`...) counts as a failed attempt like an HTTP 5xx, a timeout or a connection that
breaks off: it is retried with backoff, and after the last retry the policy fails with
ModelCallError, which the loop turns into the stop reason `model_error`.

A decision has a deadline (`decision_timeout_s`) over all its requests and retries: the timeout
of one request bounds each wait for bytes, and a server that drips a byte before every wait
ends would otherwise hold a step for ever. Past the deadline the policy fails with
DecisionTimeout (a ModelCallError, so the run stops with `model_error` and the trajectory's end
line says which deadline fired).
"""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

import openai
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent import prompt
from agent.http_deadline import Deadline, deadline_transport
from agent.toolparse import parse_reply

if TYPE_CHECKING:
    from agent.screen import Screen

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"

ReplyPath = Literal["chat", "continuation", "thinking_off"]

T = TypeVar("T")


class PolicyError(Exception):
    """A policy could not produce a reply; the loop stops with `model_error`."""


class ModelServerUnavailable(PolicyError):
    """Nothing answers at the base URL."""

    def __init__(self, base_url: str) -> None:
        super().__init__(f"no model server at {base_url} — start one with `phone-agent serve`")
        self.base_url = base_url


class ModelCallError(PolicyError):
    """The server answered, but not with a usable reply (after the allowed retries)."""


class DecisionTimeout(ModelCallError):
    """The decision's deadline passed before the server had answered."""


class UnusableReply(Exception):
    """A body that is not the JSON the endpoint promises; the message says what is wrong."""


@dataclass(frozen=True)
class DecisionRequest:
    """Everything a policy may base one decision on."""

    goal: str
    step: int
    screen: Screen
    # system + user messages, ready for a chat API; the system message and the tools are
    # byte-identical on every step so a server's prefix cache can reuse them
    messages: list[dict[str, str]]
    tools: list[dict[str, Any]]
    # None: the policy's own setting; True/False: this step only (the loop escalates with it)
    thinking: bool | None = None


class ModelReply(BaseModel):
    """One reply, in the OpenAI message shape plus how it was obtained."""

    content: str | None = None
    reasoning: str | None = None
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    finish_reason: str | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    thinking: bool | None = None
    path: ReplyPath = "chat"
    attempts: int = 1
    notes: list[str] = Field(default_factory=list)


class Policy(Protocol):
    """A source of decisions: the model client, or an oracle/replay/faulty policy in evals."""

    def decide(self, request: DecisionRequest) -> ModelReply: ...


class ClientSettings(BaseModel):
    """How to talk to the model server; recorded in the trajectory's episode line."""

    model_config = ConfigDict(frozen=True)

    base_url: str = DEFAULT_BASE_URL
    model: str | None = None  # None: the first model the server lists
    api_key: str = "EMPTY"
    tool_choice: Literal["auto", "required"] = "auto"
    thinking: bool = True
    think_budget: int | None = Field(default=512, gt=0)  # None: no cap on thinking
    answer_tokens: int = Field(default=256, gt=0)  # for the call itself, after any thinking
    temperature: float = 1.0  # the model card's recommendation
    top_p: float = 0.95
    timeout_s: float = Field(default=300.0, gt=0)  # each wait for bytes; CPU decoding is slow
    # the whole decision: every request, retry and backoff of one step
    decision_timeout_s: float = Field(default=600.0, gt=0)
    retries: int = Field(default=3, ge=0)  # on connection errors, timeouts and HTTP 5xx
    backoff_s: float = Field(default=1.0, ge=0)  # doubles after every failed attempt


class ModelClient:
    """The Policy backed by an OpenAI-compatible chat server."""

    def __init__(
        self, settings: ClientSettings, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self._deadline = Deadline()
        # retries are ours (bounded, with backoff, counted into the reply), not the SDK's
        self._openai = openai.OpenAI(
            base_url=settings.base_url,
            api_key=settings.api_key,
            timeout=settings.timeout_s,
            max_retries=0,
            http_client=openai.DefaultHttpxClient(transport=deadline_transport(self._deadline)),
        )
        self._model = settings.model

    def close(self) -> None:
        self._openai.close()

    def model_name(self) -> str:
        """The served model's name (asked of the server once when not configured)."""
        if self._model is None:
            # at start-up a refused connection means no server: say so at once
            models, _ = self._call(
                lambda: _read(self._openai.models.with_raw_response.list().content, _ModelList),
                retry_refused=False,
            )
            names = [model.id for model in models.data]
            if not names:
                raise ModelCallError(f"the model server at {self.settings.base_url} lists no model")
            self._model = names[0]
        return self._model

    def decide(self, request: DecisionRequest) -> ModelReply:
        with self._deadline.running(self.settings.decision_timeout_s):
            return self._decide(request)

    def _decide(self, request: DecisionRequest) -> ModelReply:
        thinking = self.settings.thinking if request.thinking is None else request.thinking
        budget = self.settings.think_budget if thinking else None
        reply = self._chat(request, request.messages, thinking)
        if budget is None or not _cut_inside_think(reply):
            return reply
        partial = (reply.reasoning or reply.content or "").strip()
        note = f"thinking reached the {budget}-token budget without closing </think>"
        continued = self._continue_after_think(request, partial)
        if continued is not None:
            return continued.model_copy(
                update={"notes": [f"{note}; closed it and continued"], "thinking": True}
            )
        fallback = self._chat(request, _with_summary(request.messages, partial), False)
        return fallback.model_copy(
            update={
                "path": "thinking_off",
                "notes": [f"{note}; asked again with thinking off"],
                "attempts": reply.attempts + fallback.attempts,
            }
        )

    def _chat(
        self,
        request: DecisionRequest,
        messages: list[dict[str, str]],
        thinking: bool,
    ) -> ModelReply:
        body = chat_request(self.settings, self.model_name(), messages, request.tools, thinking)
        reply, attempts = self._call(
            lambda: chat_reply(
                self._openai.post("/chat/completions", cast_to=str, body=body), thinking
            )
        )
        return reply.model_copy(update={"attempts": attempts})

    def _continue_after_think(self, request: DecisionRequest, partial: str) -> ModelReply | None:
        """The continuation path; None where the server cannot do it or it yields no call."""
        model = self.model_name()
        root = re.sub(r"/v1/?$", "", self.settings.base_url.rstrip("/"))
        try:
            prompt = self._tokenize(
                f"{root}/tokenize",
                {
                    "model": model,
                    "messages": request.messages,
                    "tools": request.tools,
                    "add_generation_prompt": True,
                    "chat_template_kwargs": {"enable_thinking": True},
                },
            )
            prompt += self._tokenize(
                f"{root}/tokenize",
                {"model": model, "prompt": f"{partial}</think>", "add_special_tokens": False},
            )
            completion, attempts = self._call(
                lambda: _read(
                    self._openai.completions.with_raw_response.create(
                        model=model,
                        prompt=prompt,
                        max_tokens=self.settings.answer_tokens,
                        temperature=self.settings.temperature,
                        top_p=self.settings.top_p,
                        extra_body={"skip_special_tokens": False},
                    ).content,
                    _TextCompletion,
                )
            )
        except ModelCallError:
            return None
        text = completion.choices[0].text
        if parse_reply(text, None, None).name is None:
            return None
        usage = completion.usage
        return ModelReply(
            content=text,
            reasoning=partial,
            finish_reason=completion.choices[0].finish_reason,
            prompt_tokens=usage.prompt_tokens if usage else None,
            completion_tokens=usage.completion_tokens if usage else None,
            path="continuation",
            attempts=attempts,
        )

    def _tokenize(self, url: str, body: dict[str, Any]) -> list[int]:
        # an absolute URL: vLLM serves /tokenize beside /v1, not under it
        answer, _ = self._call(
            lambda: _read(self._openai.post(url, cast_to=str, body=body), _Tokens)
        )
        return answer.tokens

    def _call(self, send: Callable[[], T], *, retry_refused: bool = True) -> tuple[T, int]:
        """Send with bounded retries and exponential backoff on connection errors, timeouts,
        5xx and unusable replies."""
        attempts = self.settings.retries + 1
        last_error = ""
        only_refused = True
        for attempt in range(1, attempts + 1):
            if self._deadline.passed():
                raise self._timed_out()
            try:
                return send(), attempt
            except openai.APITimeoutError:
                if self._deadline.passed():
                    raise self._timed_out() from None
                only_refused = False
                last_error = f"no answer within {self.settings.timeout_s:g} s"
            except openai.APIConnectionError as exc:
                if not _refused(exc):
                    only_refused = False
                    last_error = "the connection broke off"
                elif not retry_refused and only_refused:
                    raise ModelServerUnavailable(self.settings.base_url) from None
                else:
                    last_error = "connection refused"
            except openai.APIStatusError as exc:
                if exc.status_code < 500:
                    raise ModelCallError(
                        f"the model server refused the request: HTTP {exc.status_code}: "
                        f"{_first_line(str(exc.message))}"
                    ) from exc
                only_refused = False
                last_error = f"HTTP {exc.status_code}"
            except UnusableReply as exc:
                only_refused = False
                last_error = f"unusable reply: {exc}"
            if attempt < attempts:
                backoff = self.settings.backoff_s * 2 ** (attempt - 1)
                left = self._deadline.remaining()
                self._sleep(backoff if left is None else max(0.0, min(backoff, left)))
        if self._deadline.passed():
            raise self._timed_out()
        if only_refused:
            raise ModelServerUnavailable(self.settings.base_url)
        raise ModelCallError(
            f"the model server at {self.settings.base_url} failed {attempts} times "
            f"(last: {last_error})"
        )

    def _timed_out(self) -> DecisionTimeout:
        return DecisionTimeout(
            f"the model server at {self.settings.base_url} gave no decision within the "
            f"{self.settings.decision_timeout_s:g} s decision timeout"
        )


def chat_request(
    settings: ClientSettings,
    model: str,
    messages: list[dict[str, str]],
    tools: list[dict[str, Any]],
    thinking: bool,
) -> dict[str, Any]:
    """The body of the chat-completion request of one decision, as the client sends it: capped
    at the thinking budget with thinking on, at the answer's tokens with it off."""
    return {
        "model": model,
        "messages": messages,
        "tools": tools,
        "tool_choice": settings.tool_choice,
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "max_tokens": settings.think_budget if thinking else settings.answer_tokens,
        "chat_template_kwargs": {"enable_thinking": thinking},
    }


def chat_reply(body: bytes | str, thinking: bool) -> ModelReply:
    """A chat-completion response body as a reply; UnusableReply when it is not one."""
    completion = _read(body, _ChatCompletion)
    choice = completion.choices[0]
    message = choice.message
    usage = completion.usage
    return ModelReply(
        content=message.content,
        # vLLM names the field `reasoning_content` (older) or `reasoning` (newer)
        reasoning=message.reasoning_content or message.reasoning,
        tool_calls=[call.as_openai() for call in message.tool_calls or []],
        finish_reason=choice.finish_reason,
        prompt_tokens=usage.prompt_tokens if usage else None,
        completion_tokens=usage.completion_tokens if usage else None,
        thinking=thinking,
    )


def _cut_inside_think(reply: ModelReply) -> bool:
    """The reply hit its token cap while still reasoning, so it holds no call."""
    if reply.finish_reason != "length" or reply.tool_calls:
        return False
    content = (reply.content or "").strip()
    if not content:
        return True
    # a server without a reasoning parser returns the unclosed reasoning as content
    return not reply.reasoning and "</think>" not in content


def _with_summary(messages: list[dict[str, str]], partial: str) -> list[dict[str, str]]:
    """The same messages, the last user turn ending with where the cut reasoning had got to."""
    summary = summarize_reasoning(partial)
    if not summary:
        return messages
    *head, last = messages
    note = prompt.reasoning_cut_off(summary)
    return [*head, {**last, "content": f"{last['content']}\n\n{note}"}]


def summarize_reasoning(reasoning: str, max_chars: int = 200) -> str:
    """One line: the last sentences of a reasoning text, at most `max_chars` long."""
    text = " ".join(reasoning.split())
    if len(text) <= max_chars:
        return text
    sentences = re.split(r"(?<=[.!?])\s+", text)
    tail = ""
    for sentence in reversed(sentences):
        candidate = f"{sentence} {tail}".strip()
        if len(candidate) > max_chars:
            break
        tail = candidate
    return tail or "…" + text[-(max_chars - 1) :]


# --- what the server's bodies must hold (only the fields the agent reads) --------------------


class _Function(BaseModel):
    name: str | None = None
    arguments: Any = None  # a JSON string by the spec; some servers send the object itself


class _ToolCall(BaseModel):
    id: str | None = None
    function: _Function = Field(default_factory=_Function)

    def as_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.function.name, "arguments": self.function.arguments},
        }


class _Message(BaseModel):
    content: str | None = None
    reasoning_content: str | None = None
    reasoning: str | None = None
    tool_calls: list[_ToolCall] | None = None


class _Usage(BaseModel):
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class _ChatChoice(BaseModel):
    message: _Message
    finish_reason: str | None = None


class _ChatCompletion(BaseModel):
    choices: list[_ChatChoice] = Field(min_length=1)
    usage: _Usage | None = None


class _TextChoice(BaseModel):
    text: str
    finish_reason: str | None = None


class _TextCompletion(BaseModel):
    choices: list[_TextChoice] = Field(min_length=1)
    usage: _Usage | None = None


class _Tokens(BaseModel):
    tokens: list[int]


class _Model(BaseModel):
    id: str


class _ModelList(BaseModel):
    data: list[_Model]


Wire = TypeVar("Wire", bound=BaseModel)
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _read(body: bytes | str, shape: type[Wire]) -> Wire:
    """A response body as `shape`, or UnusableReply saying why it is not one."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        return shape.model_validate(replace_lone_surrogates(json.loads(text)))
    except json.JSONDecodeError as exc:
        raise UnusableReply(f"not JSON ({exc.msg} at character {exc.pos})") from None
    except RecursionError:
        raise UnusableReply("JSON nested too deeply") from None
    except ValidationError as exc:
        problem = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in problem["loc"]) or "the body"
        if problem["type"] == "model_type":
            shown = json.dumps(problem["input"], ensure_ascii=False)
            what = f"should be an object, not {shown[:40]}"
        else:
            what = problem["msg"].lower()
        raise UnusableReply(f"{where} {what}") from None


def replace_lone_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its strings replaced by U+FFFD: JSON may escape
    one (`"\\ud800"`), but it cannot be written as UTF-8 (trajectory, terminal, next request)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [replace_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            replace_lone_surrogates(key): replace_lone_surrogates(item)
            for key, item in value.items()
        }
    return value


def _refused(error: BaseException) -> bool:
    """Whether a connection error means nobody listens there (refused, or no such host),
    rather than a server that answered and then broke the connection off."""
    cause: BaseException | None = error
    seen: set[int] = set()
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, ConnectionRefusedError | socket.gaierror):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


__all__ = [
    "DEFAULT_BASE_URL",
    "ClientSettings",
    "DecisionRequest",
    "DecisionTimeout",
    "ModelCallError",
    "ModelClient",
    "ModelReply",
    "ModelServerUnavailable",
    "Policy",
    "PolicyError",
    "UnusableReply",
    "chat_reply",
    "chat_request",
    "replace_lone_surrogates",
    "summarize_reasoning",
]
