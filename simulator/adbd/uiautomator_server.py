"""The UI automation server that the uiautomator2 Python package ships (`u2.jar`), answered by
the simulated phone from its own screen: what the phone's `uiautomator dump` writes, it serves.

The protocol, as the jar's public source (openatx/android-uiautomator-server-jar) and the
package's client define it: `GET /ping` answers `pong`, `GET /stop` stops the server, and
`POST /jsonrpc/0` takes one JSON-RPC 2.0 request whose `params` are positional. A method is
chosen by its name and number of arguments, as jsonrpc4j picks among Java overloads; arguments
of the wrong JSON type fail with -32602; a Java exception becomes an error with code -32001, the
exception's class as `message` and its trace as `data`. A method the real server has but this
one does not answer fails with -32601 naming it and its argument count, so a client that needs
more than the simulation offers learns so at once instead of getting an empty answer.

The accessibility cache. The server's long-lived UiAutomation connection serves nodes from a
cache that can lag the screen. `UiAutomationOptions.stale_reads` makes that many reads after a
screen change return the tree from before it, as a phone's cache does, unless the cache is
cleared first. The jar clears it (`UiAutomation.clearCache()`, API 34 and later) when
`objInfoOfAllInstances` begins; a client has no other way.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from devices import KEYCODES, DeviceError
from simulator.adbd.memory import MIB
from simulator.adbd.phone import ServedPhone
from simulator.adbd.screen import XML_DECLARATION, with_declaration

# md5 of each u2.jar this simulation answers for -> its version. 0.4.1 ships with uiautomator2
# 3.7.x; another jar may speak another protocol, so it does not start (see app_process).
U2_JAR_VERSIONS = {"d4f2cb5299dfd894a40fdde067b56bc9": "0.4.1"}
U2_MAIN_CLASS = "com.wetest.uia2.Main"
U2_DEFAULT_PORT = 9008
JSONRPC_PATH = "/jsonrpc/0"
EMPTY_HIERARCHY = XML_DECLARATION + '<hierarchy rotation="0" />'
CLEARS_CACHE_FROM_SDK = 34  # UiAutomation.clearCache() exists from API 34
LONG_PRESS_MS = 500  # a press this long or longer is a long press
SWIPE_STEP_MS = 5  # uiautomator throttles each swipe step to 5 ms
MAX_REQUEST_BYTES = 1 * MIB

_PARSE_ERROR, _INVALID_REQUEST, _METHOD_NOT_FOUND, _INVALID_PARAMS = -32700, -32600, -32601, -32602
_JAVA_EXCEPTION = -32001

# `pressKey` names -> the Device protocol's key names.
_PRESS_KEY_NAMES = {
    "home": "home", "back": "back", "left": "dpad_left", "right": "dpad_right", "up": "dpad_up",
    "down": "dpad_down", "center": "dpad_center", "menu": "menu", "search": "search",
    "enter": "enter", "delete": "delete", "del": "delete", "recent": "recent_apps",
    "volume_up": "volume_up", "volume_down": "volume_down", "volume_mute": "volume_mute",
    "camera": "camera", "power": "power",
}  # fmt: skip
_KEY_NAMES_BY_CODE = {code: name for name, code in reversed(KEYCODES.items())}

# Selector fields: string matches, regular expressions (full match, as Java's), and flags.
_TEXT_FIELDS = {
    "text": ("text", str.__eq__), "textContains": ("text", str.__contains__),
    "textStartsWith": ("text", str.startswith), "className": ("class", str.__eq__),
    "description": ("content-desc", str.__eq__),
    "descriptionContains": ("content-desc", str.__contains__),
    "descriptionStartsWith": ("content-desc", str.startswith),
    "packageName": ("package", str.__eq__), "resourceId": ("resource-id", str.__eq__),
}  # fmt: skip
_PATTERN_FIELDS = {
    "textMatches": "text", "classNameMatches": "class", "descriptionMatches": "content-desc",
    "packageNameMatches": "package", "resourceIdMatches": "resource-id",
}  # fmt: skip
_FLAG_FIELDS = {
    "checkable": "checkable", "checked": "checked", "clickable": "clickable",
    "longClickable": "long-clickable", "scrollable": "scrollable", "enabled": "enabled",
    "focusable": "focusable", "focused": "focused", "selected": "selected",
}  # fmt: skip
_SELECTOR_FRAME = ("mask", "childOrSibling", "childOrSiblingSelector")
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class UiAutomationOptions:
    """How the simulated phone's UI automation behaves.

    `sdk_level`: the Android API level the phone reports (the server clears its accessibility
    cache from 34). `stale_reads`: how many hierarchy reads after a screen change still return
    the tree from before it, unless the cache is cleared first (0: the cache never lags).
    """

    sdk_level: int = 34
    stale_reads: int = 0


class AccessibilityCache:
    """The trees a UiAutomation connection has served, lagging the screen as options say."""

    def __init__(self, stale_reads: int) -> None:
        self._stale_reads = stale_reads
        self._served: str | None = None
        self._stale_left = stale_reads
        self.stale_served = 0  # reads answered with a tree from before a screen change

    def read(self, current: str) -> str:
        """What a read returns while the screen shows `current`."""
        if self._served is not None and current != self._served and self._stale_left > 0:
            self._stale_left -= 1
            self.stale_served += 1
            return self._served
        self._served = current
        self._stale_left = self._stale_reads
        return current

    def peek(self, current: str) -> str:
        """What a read would return, without counting as one."""
        stale = self._served is not None and current != self._served and self._stale_left > 0
        return self._served if stale and self._served is not None else current

    def clear(self) -> None:
        self._served = None


class JsonRpcError(Exception):
    """An error reply: code, message and optional data, as jsonrpc4j sends them."""

    def __init__(self, code: int, message: str, data: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def _java_exception(exception_class: str, message: str) -> JsonRpcError:
    trace = f"{exception_class}: {message}\n\tat com.wetest.uia2.stub.AutomatorServiceImpl"
    return JsonRpcError(_JAVA_EXCEPTION, exception_class, trace)


# Parameter kinds: each converts one JSON argument as Jackson would, or raises TypeError.
def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(value)
    return int(value)  # Jackson accepts 1.0 for an int and truncates 1.5


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(value)
    return value


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(value)
    return value


def _selector(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(value)
    return value


ParameterKind = Callable[[Any], Any]


@dataclass(frozen=True)
class _Method:
    parameters: tuple[ParameterKind, ...]
    function: Callable[..., Any]


class AutomatorService:
    """The JSON-RPC methods of the server, answered from one simulated phone."""

    def __init__(
        self, phone: ServedPhone, phone_lock: threading.Lock, options: UiAutomationOptions
    ) -> None:
        self._phone = phone
        self._lock = phone_lock
        self._options = options
        self.cache = AccessibilityCache(options.stale_reads)
        methods: dict[str, list[_Method]] = {}
        for name, parameters, function in (
            ("ping", (), lambda: "pong"),
            ("deviceInfo", (), self._device_info),
            ("dumpWindowHierarchy", (_bool,), self._dump),
            ("dumpWindowHierarchy", (_bool, _int), self._dump),
            ("dumpWindowHierarchy", (_bool, _int, _bool), self._dump),
            ("objInfoOfAllInstances", (_selector,), self._all_instances),
            ("objInfo", (_selector,), self._first_instance),
            ("count", (_selector,), lambda selector: len(self._matches(selector))),
            ("exist", (_selector,), lambda selector: bool(self._matches(selector))),
            ("waitForIdle", (_int,), lambda timeout: None),
            ("click", (_int, _int), self._click),
            ("click", (_int, _int, _int), self._click),
            ("swipe", (_int, _int, _int, _int, _int), self._swipe),
            ("pressKey", (_str,), self._press_key),
            ("pressKeyCode", (_int,), self._press_key_code),
            ("pressKeyCode", (_int, _int), self._press_key_code),
            ("wakeUp", (), lambda: None),
            ("isScreenOn", (), lambda: True),
        ):
            methods.setdefault(name, []).append(_Method(parameters, function))
        self._methods = methods

    def call(self, name: str, params: Any) -> Any:
        """The result of one call; raises JsonRpcError."""
        if params is None or params == {}:
            arguments: list[Any] = []
        elif isinstance(params, list):
            arguments = params
        else:
            # jsonrpc4j takes named arguments only where the interface names them; it does not.
            raise JsonRpcError(_INVALID_PARAMS, "method parameters invalid")
        overloads = [m for m in self._methods.get(name, []) if len(m.parameters) == len(arguments)]
        if not overloads:
            raise JsonRpcError(
                _METHOD_NOT_FOUND,
                f"method not found: the simulated uiautomator2 server does not answer {name} "
                f"with {len(arguments)} argument(s)",
            )
        method = overloads[0]
        try:
            converted = [
                kind(value) for kind, value in zip(method.parameters, arguments, strict=True)
            ]
        except TypeError:
            raise JsonRpcError(_INVALID_PARAMS, "method parameters invalid") from None
        with self._lock:
            try:
                return method.function(*converted)
            except DeviceError as exc:
                raise _java_exception("java.lang.IllegalStateException", str(exc)) from exc

    # --- the screen ----------------------------------------------------------------------

    def _device_info(self) -> dict[str, Any]:
        width, height = self._phone.screen_size()
        density = 420 / 160
        return {
            "currentPackageName": self._phone.foreground_app(),
            "displayWidth": width,
            "displayHeight": height,
            "displayRotation": 0,
            "displaySizeDpX": round(width / density),
            "displaySizeDpY": round(height / density),
            "productName": "sdk_gphone64_x86_64",
            "naturalOrientation": True,
            "screenOn": True,
            "sdkInt": self._options.sdk_level,
        }

    def _current_xml(self) -> str:
        try:
            return with_declaration(self._phone.dump_xml())
        except DeviceError:
            # No active window root: the server writes a hierarchy with no nodes.
            return EMPTY_HIERARCHY

    def _dump(self, compressed: bool, max_depth: int = 50, root_in_active: bool = False) -> str:
        # The simulated screen holds no views that compression would leave out, and its dump
        # already has only the windows the phone's own dump shows.
        return _limit_depth(self.cache.read(self._current_xml()), max_depth)

    def _all_instances(self, selector: dict[str, Any]) -> list[dict[str, Any]]:
        if self._options.sdk_level >= CLEARS_CACHE_FROM_SDK:
            self.cache.clear()
        return [_object_info(node) for node in self._matches(selector)]

    def _first_instance(self, selector: dict[str, Any]) -> dict[str, Any]:
        found = self._matches(selector)
        if not found:
            error = _java_exception("androidx.test.uiautomator.UiObjectNotFoundException", "")
            error.data = f"UiSelector{_selector_text(selector)}"  # its message, not a trace
            raise error
        return _object_info(found[0])

    def _matches(self, selector: dict[str, Any]) -> list[ElementTree.Element]:
        """The nodes `selector` picks on the screen the server sees, in document order."""
        if selector.get("childOrSibling") or selector.get("childOrSiblingSelector"):
            raise JsonRpcError(
                _METHOD_NOT_FOUND,
                "the simulated uiautomator2 server does not follow child or sibling selectors",
            )
        unknown = set(selector) - {
            *_SELECTOR_FRAME, *_TEXT_FIELDS, *_PATTERN_FIELDS, *_FLAG_FIELDS, "index", "instance"
        }  # fmt: skip
        if unknown:
            raise JsonRpcError(_INVALID_PARAMS, f"unknown selector fields: {sorted(unknown)}")
        root = ElementTree.fromstring(self.cache.peek(self._current_xml()).encode())
        found = [node for node in root.iter("node") if _selected(node, selector)]
        if "instance" in selector:
            instance = _int(selector["instance"])
            return found[instance : instance + 1]
        return found

    # --- input ---------------------------------------------------------------------------

    def _click(self, x: int, y: int, milliseconds: int | None = None) -> bool:
        if x < 0 or y < 0:
            return False  # the server refuses points off the screen's top or left edge
        if milliseconds is not None and milliseconds >= LONG_PRESS_MS:
            self._phone.long_press(x, y, milliseconds)
        else:
            self._phone.tap(x, y)
        return True

    def _swipe(self, x1: int, y1: int, x2: int, y2: int, steps: int) -> bool:
        if min(x1, y1, x2, y2) < 0 or steps < 1:
            return False
        self._phone.swipe(x1, y1, x2, y2, max(steps * SWIPE_STEP_MS, 1))
        return True

    def _press_key(self, key: str) -> bool:
        name = _PRESS_KEY_NAMES.get(key.lower())
        if name is None:
            return False
        self._phone.press_key(name)
        return True

    def _press_key_code(self, code: int, meta_state: int = 0) -> bool:
        name = _KEY_NAMES_BY_CODE.get(code)
        if meta_state:
            raise JsonRpcError(
                _METHOD_NOT_FOUND,
                "the simulated uiautomator2 server does not press keys with meta keys held",
            )
        if name is None:
            return False
        self._phone.press_key(name)
        return True


def _limit_depth(xml: str, max_depth: int) -> str:
    """The hierarchy without nodes deeper than `max_depth` (a window's root is at depth 0)."""
    root = ElementTree.fromstring(xml.encode())

    def prune(node: ElementTree.Element, depth: int) -> bool:
        pruned = False
        for child in list(node):
            if depth >= max_depth:
                node.remove(child)
                pruned = True
            else:
                pruned = prune(child, depth + 1) or pruned
        return pruned

    if not any([prune(window, 0) for window in root]):
        return xml  # nothing cut: the XML as the dump wrote it
    return XML_DECLARATION + ElementTree.tostring(root, encoding="unicode")


def _selected(node: ElementTree.Element, selector: Mapping[str, Any]) -> bool:
    for field, value in selector.items():
        if field in _TEXT_FIELDS:
            attribute, matches = _TEXT_FIELDS[field]
            if not matches(node.get(attribute, ""), _str(value)):
                return False
        elif field in _PATTERN_FIELDS:
            if re.fullmatch(_str(value), node.get(_PATTERN_FIELDS[field], "")) is None:
                return False
        elif field in _FLAG_FIELDS:
            if (node.get(_FLAG_FIELDS[field]) == "true") != _bool(value):
                return False
        elif field == "index" and node.get("index") != str(_int(value)):
            return False
    return True


def _selector_text(selector: Mapping[str, Any]) -> str:
    fields = ", ".join(f"{k}={v}" for k, v in selector.items() if k not in _SELECTOR_FRAME)
    return f"[{fields}]"


def _object_info(node: ElementTree.Element) -> dict[str, Any]:
    match = _BOUNDS.fullmatch(node.get("bounds", ""))
    left, top, right, bottom = (int(v) for v in match.groups()) if match else (0, 0, 0, 0)
    bounds = {"top": top, "bottom": bottom, "left": left, "right": right}
    flags = {key: node.get(attribute) == "true" for key, attribute in _FLAG_FIELDS.items()}
    return {
        "bounds": bounds,
        "visibleBounds": dict(bounds),
        "childCount": len(node),
        "className": node.get("class", ""),
        "contentDescription": node.get("content-desc", ""),
        "packageName": node.get("package", ""),
        "resourceName": node.get("resource-id", ""),
        "text": node.get("text", ""),
        **flags,
    }


class UiAutomatorServer:
    """One running server: its JSON-RPC service over HTTP, on connections its port receives."""

    def __init__(
        self, phone: ServedPhone, phone_lock: threading.Lock, options: UiAutomationOptions
    ) -> None:
        self.service = AutomatorService(phone, phone_lock, options)
        self.stopped = threading.Event()

    def serve(self, sock: socket.socket) -> None:
        """Answer HTTP requests on one connection until the client closes it."""
        _HttpExchange(sock, ("127.0.0.1", 0), self)  # type: ignore[arg-type]

    def answer(self, body: bytes) -> dict[str, Any]:
        """The JSON-RPC reply to one request body."""
        try:
            request = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return _reply(None, error=JsonRpcError(_PARSE_ERROR, "JSON parse error"))
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            return _reply(None, error=JsonRpcError(_INVALID_REQUEST, "invalid request"))
        request_id = request.get("id")
        try:
            result = self.service.call(request["method"], request.get("params"))
        except JsonRpcError as exc:
            return _reply(request_id, error=exc)
        return _reply(request_id, result=result)


def _reply(
    request_id: Any, *, result: Any = None, error: JsonRpcError | None = None
) -> dict[str, Any]:
    if error is not None:
        return {"jsonrpc": "2.0", "id": request_id, "error": error.to_json()}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


class _HttpExchange(BaseHTTPRequestHandler):
    """HTTP/1.1 on one connection: the server's three routes."""

    protocol_version = "HTTP/1.1"
    wbufsize = 64 * 1024  # a reply leaves in one write: headers and body together
    server: UiAutomatorServer  # type: ignore[assignment]

    def do_GET(self) -> None:
        path = self.path.partition("?")[0]
        if path == "/ping":
            self._send(200, "text/html", b"pong")
        elif path == "/stop":
            self.server.stopped.set()
            self._send(200, "text/html", b"Server stopped!!!")
        else:
            self._send(404, "text/plain", b"Not Found!!!")

    def do_POST(self) -> None:
        if self.path.partition("?")[0] != JSONRPC_PATH:
            self._discard_body()
            self._send(404, "text/plain", b"Not Found!!!")
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            length = -1
        if not 0 < length <= MAX_REQUEST_BYTES:
            self.close_connection = True
            self._send(500, "text/plain", b"Invalid http post data!")
            return
        reply = self.server.answer(self.rfile.read(length))
        self._send(200, "application/json", json.dumps(reply, ensure_ascii=False).encode())

    def _discard_body(self) -> None:
        length = self.headers.get("Content-Length", "0")
        if length.isdigit() and int(length) <= MAX_REQUEST_BYTES:
            self.rfile.read(int(length))
        else:
            self.close_connection = True

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # a served phone keeps quiet; its client reports what matters
