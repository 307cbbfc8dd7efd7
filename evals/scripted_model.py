"""A scripted OpenAI-compatible model server on loopback, for testing an agent without a model.

`ScriptedServer` serves `GET /v1/models`, `POST /v1/chat/completions`, `POST /v1/completions`
and `POST /tokenize` on 127.0.0.1 (a free port) from a background thread, answers each request
from a script, and records every request it received, so a test can assert on the prompts.

A script is either a list of turns, played in order (past its end the server answers HTTP 599),
or one function called with each request's JSON body. A turn is a `Scripted` answer (built with
`call`, `text`, `error`, ...) or a function of the request body that returns one; `tap(label)`
is such a function: it finds the element labelled `label` on the screen the agent sent.

```python
with ScriptedServer([call("open_app", name="Settings"), tap("Network & internet")]) as model:
    ...  # point the agent at model.base_url; model.chat_requests holds what it sent
```

An answer may also misbehave the way a broken or hostile server does: any raw body with any
status (`body_of`), a pause before answering (`hang`), a reply cut off after some bytes of its
body, with or without a pause first (`cut_off`), a whole answer sent a byte at a time, headers
included, each byte well within a client's read timeout (`drip`), or a connection closed
without an answer (`hang_up`).

`/tokenize` uses a toy tokenizer, one token per character (its code point), so a test can turn
a completions prompt back into text (`decode`); chat messages render in a Spark-like frame
ending with `<|Bot|><think>` (or `</think>` with thinking off; `render_chat`).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The HTTP status of an answer the script could not give (exhausted, or a turn that failed).
SCRIPT_FAILED = 599


@dataclass(frozen=True)
class Scripted:
    """One scripted answer: a reply, an HTTP error status, a raw body, a hang or a hang-up."""

    content: str | None = None
    reasoning: str | None = None
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    finish_reason: str = "stop"
    status: int = 200
    hang_s: float = 0.0  # sleep this long before answering (a client timeout fires first)
    body: bytes | None = None  # sent as is, with `status`, instead of a rendered reply
    content_type: str = "application/json"
    # send the headers and only this many bytes of the body, wait `stall_s`, then hang up
    cut_body_after: int | None = None
    stall_s: float = 0.0
    no_response: bool = False  # hang up without sending a byte
    drip_s: float = 0.0  # send the answer, status line to last byte, evenly over this long


def call(tool: str, /, **arguments: Any) -> Scripted:
    """A reply carrying one structured tool call, e.g. `call("tap", index=4)`."""
    return Scripted(calls=[(tool, arguments)], finish_reason="tool_calls")


def text(content: str, *, reasoning: str | None = None, finish_reason: str = "stop") -> Scripted:
    """A reply whose content is `content` (for the agent's parser to read a call from)."""
    return Scripted(content=content, reasoning=reasoning, finish_reason=finish_reason)


def error(status: int = 500) -> Scripted:
    return Scripted(status=status)


def hang(seconds: float) -> Scripted:
    return Scripted(hang_s=seconds)


def body_of(
    data: bytes | str, status: int = 200, content_type: str = "application/json"
) -> Scripted:
    """An answer whose body is `data`, byte for byte, whatever the request was."""
    raw_body = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return Scripted(status=status, body=raw_body, content_type=content_type)


def cut_off(reply: Scripted, after_bytes: int, stall_s: float = 0.0) -> Scripted:
    """`reply`, promised whole by its Content-Length but cut after `after_bytes` of its body
    (after a pause of `stall_s`, which a client's read timeout may end first)."""
    return replace(reply, cut_body_after=after_bytes, stall_s=stall_s)


def drip(reply: Scripted, seconds: float) -> Scripted:
    """`reply`, its status line, headers and body sent one byte at a time over `seconds`."""
    return replace(reply, drip_s=seconds)


def hang_up() -> Scripted:
    """The connection closes as soon as the request has been read."""
    return Scripted(no_response=True)


# One scripted turn that may read the request (e.g. to find an element's index on the screen).
Turn = Scripted | Callable[[dict[str, Any]], Scripted]
Script = Sequence[Turn] | Callable[[dict[str, Any]], Scripted]


def screen_lines(body: dict[str, Any]) -> list[tuple[int, str]]:
    """(index, label) of each element on the screen in the request's last user turn."""
    if "messages" in body:
        prompt = [m["content"] for m in body["messages"] if m["role"] == "user"][-1]
    else:  # a completions request: token ids of the toy tokenizer
        prompt = decode(body["prompt"])
    screen = prompt.rpartition("Screen:\n")[2].partition("<|Bot|>")[0]
    found = (re.match(r'\[(\d+)\] \S+(?: "(.*)")?', line) for line in screen.splitlines())
    return [(int(match[1]), match[2] or "") for match in found if match]


def index_of(body: dict[str, Any], label: str) -> int:
    """The index of the first element labelled `label` (or `label, summary...`) on screen."""
    for index, shown in screen_lines(body):
        if shown == label or shown.startswith(label + ", "):
            return index
    raise LookupError(f"no element {label!r} on the screen: {screen_lines(body)}")


def tap(label: str) -> Turn:
    """A structured tap on the element labelled `label` on the screen the agent sent."""
    return lambda body: call("tap", index=index_of(body, label))


def raw(template: str, label: str) -> Turn:
    """Reply text with `{index}` replaced by the index of the element labelled `label`."""
    return lambda body: text(template.replace("{index}", str(index_of(body, label))))


@dataclass(frozen=True)
class Request:
    """One request the server received: its path and JSON body."""

    path: str
    body: dict[str, Any]

    @property
    def user_text(self) -> str:
        """The last user message of a chat request (the goal, history and screen)."""
        users = [m["content"] for m in self.body.get("messages", []) if m["role"] == "user"]
        return str(users[-1]) if users else ""

    @property
    def thinking(self) -> bool:
        kwargs = self.body.get("chat_template_kwargs") or {}
        return bool(kwargs.get("enable_thinking", True))


class ScriptedServer:
    """A model server that answers from scripts: `chat` for chat completions, `completions`
    for text completions (none by default). Use as a context manager, or `start()` and
    `stop()`; `base_url` is the `/v1` URL to give a client, `requests` what it received.

    `models` replaces the answer to `GET /v1/models` (e.g. with `body_of(...)` or `hang_up()`);
    `tokenize=False` serves no `/tokenize`, like servers that lack it.
    """

    def __init__(
        self,
        chat: Script,
        completions: Script | None = None,
        *,
        model: str = "scripted-model",
        tokenize: bool = True,
        models: Scripted | None = None,
    ) -> None:
        self.model = model
        self._models = models
        self.requests: list[Request] = []
        self._scripts: dict[str, Script] = {"chat": chat, "completions": completions or []}
        self._positions = {"chat": 0, "completions": 0}
        self._tokenize = tokenize
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"scripted-model:{self._httpd.server_address[1]}",
            daemon=True,
        )

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ScriptedServer:
        """Serve in a background thread; returns self."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; answers still hanging give up at once."""
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def requests_to(self, path: str) -> list[Request]:
        with self._lock:
            return [request for request in self.requests if request.path == path]

    @property
    def chat_requests(self) -> list[Request]:
        return self.requests_to("/v1/chat/completions")

    def _next(self, kind: str, body: dict[str, Any]) -> Scripted:
        with self._lock:
            script = self._scripts[kind]
            if callable(script):
                return script(body)
            position = self._positions[kind]
            if position >= len(script):
                return Scripted(
                    status=SCRIPT_FAILED, content=f"{kind} script exhausted after {position}"
                )
            self._positions[kind] += 1
            turn = script[position]
            return turn(body) if callable(turn) else turn

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                """Keep test output quiet."""

            def do_GET(self) -> None:
                if self.path.rstrip("/") == "/v1/models" and server._models is not None:
                    self._reply(server._models, lambda scripted, model: {}, {})
                elif self.path.rstrip("/") == "/v1/models":
                    self._send(200, {"object": "list", "data": [_model(server.model)]})
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests.append(Request(self.path, body))
                kind = {"/v1/chat/completions": "chat", "/v1/completions": "completions"}
                if self.path in kind:
                    try:
                        scripted = server._next(kind[self.path], body)
                    except Exception as exc:  # a script bug: fail the request, visibly
                        scripted = Scripted(status=SCRIPT_FAILED, content=f"script failed: {exc!r}")
                    render = _chat_completion if kind[self.path] == "chat" else _text_completion
                    self._reply(scripted, render, body)
                elif self.path == "/tokenize" and server._tokenize:
                    self._send(200, _tokenize(body))
                else:
                    self._send(404, {"error": {"message": f"no route {self.path}"}})

            def _reply(
                self,
                scripted: Scripted,
                render: Callable[[Scripted, str], dict[str, Any]],
                body: dict[str, Any],
            ) -> None:
                if scripted.hang_s and server._stopping.wait(scripted.hang_s):
                    return
                if scripted.no_response:
                    self.close_connection = True
                    return
                if scripted.body is not None:
                    data = scripted.body
                elif scripted.status != 200:
                    message = scripted.content or "scripted failure"
                    data = json.dumps({"error": {"message": message}}).encode()
                else:
                    data = json.dumps(render(scripted, str(body.get("model")))).encode()
                if scripted.drip_s:
                    self._drip(scripted.status, data, scripted.content_type, scripted.drip_s)
                    return
                self._send_bytes(
                    scripted.status,
                    data,
                    scripted.content_type,
                    cut_after=scripted.cut_body_after,
                    stall_s=scripted.stall_s,
                )

            def _drip(self, status: int, data: bytes, content_type: str, seconds: float) -> None:
                head = (
                    f"HTTP/1.1 {status} Scripted\r\nContent-Type: {content_type}\r\n"
                    f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n"
                ).encode()
                answer = head + data
                self.close_connection = True
                try:
                    for at in range(len(answer)):
                        self.wfile.write(answer[at : at + 1])
                        self.wfile.flush()
                        if server._stopping.wait(seconds / len(answer)):
                            return
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                self._send_bytes(status, json.dumps(payload).encode(), "application/json")

            def _send_bytes(
                self,
                status: int,
                data: bytes,
                content_type: str,
                *,
                cut_after: int | None = None,
                stall_s: float = 0.0,
            ) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if cut_after is None:
                        self.wfile.write(data)
                        return
                    self.wfile.write(data[:cut_after])
                    self.wfile.flush()
                    self.close_connection = True
                    server._stopping.wait(stall_s)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout)

        return Handler


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "phone-agent"}


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _chat_completion(scripted: Scripted, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": scripted.content}
    if scripted.reasoning is not None:
        message["reasoning_content"] = scripted.reasoning
    if scripted.calls:
        message["tool_calls"] = [
            {
                "id": f"call_{position}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            for position, (name, arguments) in enumerate(scripted.calls)
        ]
    choice = {"index": 0, "message": message, "finish_reason": scripted.finish_reason}
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [choice],
        "usage": _usage(100, 10),
    }


def _text_completion(scripted: Scripted, model: str) -> dict[str, Any]:
    choice = {
        "index": 0,
        "text": scripted.content or "",
        "finish_reason": scripted.finish_reason,
        "logprobs": None,
    }
    return {
        "id": "cmpl-scripted",
        "object": "text_completion",
        "created": 0,
        "model": model,
        "choices": [choice],
        "usage": _usage(100, 10),
    }


def render_chat(body: dict[str, Any]) -> str:
    """The toy chat template: role tags, contents, then the generation prompt."""
    tags = {"system": "<|System|>", "user": "<|User|>", "assistant": "<|Bot|>", "tool": "<|Tool|>"}
    parts = [tags[m["role"]] + str(m["content"]) for m in body["messages"]]
    thinking = (body.get("chat_template_kwargs") or {}).get("enable_thinking", True)
    if body.get("add_generation_prompt", True):
        parts.append("<|Bot|>" + ("<think>" if thinking else "</think>"))
    return "".join(parts)


def decode(tokens: list[int]) -> str:
    """Inverse of the toy tokenizer."""
    return "".join(chr(token) for token in tokens)


def _tokenize(body: dict[str, Any]) -> dict[str, Any]:
    source = render_chat(body) if "messages" in body else str(body.get("prompt", ""))
    tokens = [ord(character) for character in source]
    return {"count": len(tokens), "max_model_len": 32768, "tokens": tokens}
