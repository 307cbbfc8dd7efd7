"""A small POSIX shell: the command lines `adb shell` hands to a simulated phone.

It parses with sh rules (quoting, backslashes, `;`, `&&`, `||`, `|`, `&`, newlines, comments,
redirections, `$VAR`, `$?`, `$(...)` and backticks) and runs the commands against a table the
caller provides, so an unquoted metacharacter does to the simulated phone what it would do to a
real one: `$(rm /sdcard/x)` runs `rm`, `a;b` runs two commands, `*` matches files. Compound
commands (`if`, `for`, `while`, `case`, functions) are refused with a syntax error rather than
guessed at; nothing the project sends needs them.

Everything runs in-process on byte buffers: a pipeline runs its commands one after the other,
each reading the previous one's output. Every buffer and expanded word is charged to the command
line's `ByteBudget` before it grows, so output that multiplies through pipes, substitutions or
globs stops the command line with an error instead of filling the server's memory.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from simulator.adbd.memory import MIB, BudgetExceeded, ByteBudget

if TYPE_CHECKING:
    from typing import Self

    from typing_extensions import Buffer

SHELL_NAME = "/system/bin/sh"
MAX_SUBSTITUTION_DEPTH = 16
# What one command line may hold: its output passes through at least two buffers (the
# command's own and the caller's), so this allows about 32 MiB of output.
MAX_COMMAND_BYTES = 64 * MIB

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_REDIRECTION = re.compile(r"(\d?)(>>|>&|<&|>\||<<|<>|>|<)")
_RESERVED = frozenset(
    {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
     "function", "{", "}", "[[", "select"}
)  # fmt: skip
_OPERATOR_CHARS = frozenset(";&|()<>\n")
_BLANKS = frozenset(" \t")
# Pathname expansion: `*` and `?` (bracket expressions are taken literally).
_GLOB = {"*": "[^/]*", "?": "[^/]"}


class ShellSyntaxError(Exception):
    """The command line is not valid sh, or uses a construct this shell does not run."""


class ShellExit(Exception):
    """`exit N` unwinds the whole script."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


# --- syntax tree -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Literal:
    text: str
    quoted: bool


@dataclass(frozen=True)
class Parameter:
    name: str
    quoted: bool


@dataclass(frozen=True)
class CommandSubstitution:
    script: Script
    quoted: bool


WordPart = Literal | Parameter | CommandSubstitution


@dataclass(frozen=True)
class Word:
    parts: tuple[WordPart, ...]


@dataclass(frozen=True)
class Redirect:
    fd: int
    op: str  # one of < > >> >& <&
    target: Word


@dataclass(frozen=True)
class SimpleCommand:
    assignments: tuple[tuple[str, Word], ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Subshell:
    script: Script
    redirects: tuple[Redirect, ...]


@dataclass(frozen=True)
class Pipeline:
    commands: tuple[SimpleCommand | Subshell, ...]
    negated: bool


@dataclass(frozen=True)
class AndOr:
    first: Pipeline
    rest: tuple[tuple[str, Pipeline], ...]  # ("&&" | "||", pipeline)


@dataclass(frozen=True)
class Script:
    items: tuple[AndOr, ...]


# --- parser ----------------------------------------------------------------------------------


class _Parser:
    def __init__(self, source: str, depth: int = 0) -> None:
        if depth > MAX_SUBSTITUTION_DEPTH:
            raise ShellSyntaxError("syntax error: nested too deeply")
        self.source = source
        self.pos = 0
        self.depth = depth
        self.nesting = 0

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.source[index] if index < len(self.source) else ""

    def startswith(self, text: str) -> bool:
        return self.source.startswith(text, self.pos)

    def skip_blanks(self) -> None:
        while True:
            char = self.peek()
            if char in _BLANKS and char:
                self.pos += 1
            elif self.startswith("\\\n"):
                self.pos += 2
            elif char == "#":
                while self.peek() not in ("", "\n"):
                    self.pos += 1
            else:
                return

    def skip_separators(self) -> None:
        while True:
            self.skip_blanks()
            if self.peek() == "\n":
                self.pos += 1
            else:
                return

    def parse_script(self, closing: str | None) -> Script:
        """A list of and-or items up to the end, or up to `closing` (left unconsumed)."""
        self.nesting += 1
        if self.depth + self.nesting > MAX_SUBSTITUTION_DEPTH:
            raise ShellSyntaxError("syntax error: nested too deeply")
        items: list[AndOr] = []
        while True:
            self.skip_separators()
            char = self.peek()
            if char == "" or (closing is not None and char == closing):
                break
            if char in ";&|)":
                raise ShellSyntaxError(f"syntax error: unexpected '{char}'")
            items.append(self.parse_and_or())
            self.skip_blanks()
            char = self.peek()
            if char in (";", "\n") or (char == "&" and self.peek(1) != "&"):
                # A background job (`&`) runs to completion like `;`: there is no job control.
                self.pos += 1
            elif char == "" or (closing is not None and char == closing):
                break
            else:
                raise ShellSyntaxError(f"syntax error: unexpected '{char}'")
        if closing is None and self.peek():
            raise ShellSyntaxError(f"syntax error: unexpected '{self.peek()}'")
        self.nesting -= 1
        return Script(tuple(items))

    def parse_and_or(self) -> AndOr:
        first = self.parse_pipeline()
        rest: list[tuple[str, Pipeline]] = []
        while True:
            self.skip_blanks()
            if self.startswith("&&") or self.startswith("||"):
                operator = self.source[self.pos : self.pos + 2]
                self.pos += 2
                self.skip_separators()
                rest.append((operator, self.parse_pipeline()))
            else:
                return AndOr(first, tuple(rest))

    def parse_pipeline(self) -> Pipeline:
        self.skip_blanks()
        negated = False
        if self.peek() == "!" and self.peek(1) in (" ", "\t"):
            negated = True
            self.pos += 1
        commands = [self.parse_command()]
        while True:
            self.skip_blanks()
            if self.peek() == "|" and self.peek(1) != "|":
                self.pos += 1
                self.skip_separators()
                commands.append(self.parse_command())
            else:
                return Pipeline(tuple(commands), negated)

    def parse_command(self) -> SimpleCommand | Subshell:
        self.skip_blanks()
        if self.peek() == "(":
            self.pos += 1
            script = self.parse_script(closing=")")
            if self.peek() != ")":
                raise ShellSyntaxError("syntax error: '(' unmatched")
            self.pos += 1
            return Subshell(script, tuple(self.parse_redirects_only()))
        assignments: list[tuple[str, Word]] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        while True:
            self.skip_blanks()
            char = self.peek()
            if char == "" or char in ";&|)\n":
                break
            if char == "(":
                raise ShellSyntaxError("syntax error: unexpected '('")
            redirect = self.parse_redirect()
            if redirect is not None:
                redirects.append(redirect)
                continue
            start = self.pos
            word = self.parse_word()
            if not words:
                match = _ASSIGNMENT.match(self.source, start)
                if match is not None and self._plain_prefix(word, len(match.group(0))):
                    assignments.append((match.group(1), _drop_prefix(word, len(match.group(0)))))
                    continue
                if _is_reserved(word):
                    raise ShellSyntaxError(
                        f"syntax error: '{_literal_text(word)}' is not supported by this shell"
                    )
            words.append(word)
        if not words and not assignments and not redirects:
            raise ShellSyntaxError(f"syntax error: unexpected '{self.peek() or 'end of input'}'")
        return SimpleCommand(tuple(assignments), tuple(words), tuple(redirects))

    @staticmethod
    def _plain_prefix(word: Word, length: int) -> bool:
        first = word.parts[0] if word.parts else None
        return isinstance(first, Literal) and not first.quoted and len(first.text) >= length

    def parse_redirects_only(self) -> list[Redirect]:
        redirects: list[Redirect] = []
        while True:
            self.skip_blanks()
            redirect = self.parse_redirect()
            if redirect is None:
                return redirects
            redirects.append(redirect)

    def parse_redirect(self) -> Redirect | None:
        match = _REDIRECTION.match(self.source, self.pos)
        if match is None:
            return None
        number, operator = match.groups()
        if operator == "<<":
            raise ShellSyntaxError("syntax error: here-documents are not supported by this shell")
        self.pos = match.end()
        self.skip_blanks()
        if self.peek() == "" or self.peek() in _OPERATOR_CHARS:
            raise ShellSyntaxError(f"syntax error: no file after '{operator}'")
        operator = {">|": ">", "<>": "<"}.get(operator, operator)
        default_fd = 0 if operator.startswith("<") else 1
        return Redirect(int(number) if number else default_fd, operator, self.parse_word())

    def parse_word(self) -> Word:
        parts: list[WordPart] = []
        buffer: list[str] = []

        def flush() -> None:
            if buffer:
                parts.append(Literal("".join(buffer), quoted=False))
                buffer.clear()

        while True:
            char = self.peek()
            if char == "" or char in _BLANKS or char in _OPERATOR_CHARS:
                break
            if char == "\\":
                if self.peek(1) == "\n":
                    self.pos += 2
                    continue
                flush()
                if self.peek(1) == "":
                    parts.append(Literal("\\", quoted=True))
                    self.pos += 1
                else:
                    parts.append(Literal(self.peek(1), quoted=True))
                    self.pos += 2
            elif char == "'":
                flush()
                end = self.source.find("'", self.pos + 1)
                if end < 0:
                    raise ShellSyntaxError("syntax error: unterminated quoted string")
                parts.append(Literal(self.source[self.pos + 1 : end], quoted=True))
                self.pos = end + 1
            elif char == '"':
                flush()
                self.pos += 1
                parts.extend(self.parse_double_quoted())
            elif char == "$":
                flush()
                parts.append(self.parse_dollar(quoted=False))
            elif char == "`":
                flush()
                parts.append(self.parse_backticks(quoted=False))
            else:
                buffer.append(char)
                self.pos += 1
        flush()
        return Word(tuple(parts))

    def parse_double_quoted(self) -> list[WordPart]:
        parts: list[WordPart] = []
        buffer: list[str] = []
        while True:
            char = self.peek()
            if char == "":
                raise ShellSyntaxError("syntax error: unterminated quoted string")
            if char == '"':
                self.pos += 1
                break
            if char == "\\" and self.peek(1) in ("$", "`", '"', "\\", "\n"):
                if self.peek(1) != "\n":
                    buffer.append(self.peek(1))
                self.pos += 2
            elif char in ("$", "`"):
                if buffer:
                    parts.append(Literal("".join(buffer), quoted=True))
                    buffer.clear()
                part = (
                    self.parse_dollar(quoted=True)
                    if char == "$"
                    else self.parse_backticks(quoted=True)
                )
                parts.append(part)
            else:
                buffer.append(char)
                self.pos += 1
        # An empty pair of quotes still makes a (empty) field.
        parts.append(Literal("".join(buffer), quoted=True))
        return parts

    def parse_dollar(self, quoted: bool) -> WordPart:
        self.pos += 1  # the `$`
        char = self.peek()
        if char == "(":
            if self.peek(1) == "(":
                raise ShellSyntaxError("syntax error: arithmetic is not supported by this shell")
            self.pos += 1
            script = self.parse_script(closing=")")
            if self.peek() != ")":
                raise ShellSyntaxError("syntax error: '$(' unmatched")
            self.pos += 1
            return CommandSubstitution(script, quoted)
        if char == "{":
            end = self.source.find("}", self.pos)
            if end < 0:
                raise ShellSyntaxError("syntax error: '${' unmatched")
            name = self.source[self.pos + 1 : end]
            if not (_NAME.fullmatch(name) or name in ("?", "$", "#", "!", "@", "*", "-")):
                raise ShellSyntaxError(f"syntax error: bad substitution '${{{name}}}'")
            self.pos = end + 1
            return Parameter(name, quoted)
        match = _NAME.match(self.source, self.pos)
        if match is not None:
            self.pos = match.end()
            return Parameter(match.group(0), quoted)
        if char and char in "?$#!@*-0123456789":
            self.pos += 1
            return Parameter(char, quoted)
        return Literal("$", quoted)

    def parse_backticks(self, quoted: bool) -> WordPart:
        self.pos += 1
        inner: list[str] = []
        while True:
            char = self.peek()
            if char == "":
                raise ShellSyntaxError("syntax error: '`' unmatched")
            if char == "`":
                self.pos += 1
                break
            if char == "\\" and self.peek(1) in ("$", "`", "\\"):
                inner.append(self.peek(1))
                self.pos += 2
            else:
                inner.append(char)
                self.pos += 1
        inner_parser = _Parser("".join(inner), self.depth + self.nesting)
        return CommandSubstitution(inner_parser.parse_script(closing=None), quoted)


def _literal_text(word: Word) -> str:
    return "".join(part.text for part in word.parts if isinstance(part, Literal))


def _is_reserved(word: Word) -> bool:
    return (
        len(word.parts) == 1
        and isinstance(word.parts[0], Literal)
        and not word.parts[0].quoted
        and word.parts[0].text in _RESERVED
    )


def _drop_prefix(word: Word, length: int) -> Word:
    first = word.parts[0]
    assert isinstance(first, Literal)
    rest = first.text[length:]
    head: tuple[WordPart, ...] = (Literal(rest, quoted=False),) if rest else ()
    parts = head + word.parts[1:]
    return Word(parts or (Literal("", quoted=True),))


def parse(source: str) -> Script:
    """Parse a command line; raises ShellSyntaxError."""
    return _Parser(source).parse_script(closing=None)


# --- execution -------------------------------------------------------------------------------


class FileSystem(Protocol):
    """Where redirections and pathname expansion look; paths are absolute."""

    def read(self, path: str) -> bytes: ...  # raises OSError with a strerror

    def write(self, path: str, data: bytes, append: bool) -> None: ...

    def paths(self) -> list[str]: ...  # every file and directory


class ChargedBuffer(bytearray):
    """A buffer of the shell (output, pipe, substitution) that charges its budget as it grows."""

    def __init__(self, budget: ByteBudget) -> None:
        super().__init__()
        self.budget = budget

    # bytearray's own `+=` takes buffers only, narrower than MutableSequence's; so does this.
    def __iadd__(self, data: Buffer) -> Self:  # type: ignore[override]
        self.budget.charge(memoryview(data).nbytes)
        return super().__iadd__(data)


class Caller(Protocol):
    """The client a command line runs for. A program that runs until it is stopped (a server)
    ends when its client hangs up, as a phone's programs do when `adb shell` goes away."""

    def wait_for_hangup(self, timeout: float) -> bool:
        """Whether the client has gone, waiting at most `timeout` seconds to find out."""
        ...


@dataclass
class Invocation:
    """What a command sees: its arguments, its input and environment, where its output goes,
    and the client it runs for (None when no client waits on it)."""

    argv: list[str]
    stdin: bytes
    budget: ByteBudget
    environment: Mapping[str, str] = field(default_factory=dict)
    caller: Caller | None = None
    stdout: ChargedBuffer = field(init=False)
    stderr: ChargedBuffer = field(init=False)

    def __post_init__(self) -> None:
        self.stdout = ChargedBuffer(self.budget)
        self.stderr = ChargedBuffer(self.budget)

    def out(self, text: str | bytes) -> None:
        self.stdout += text.encode() if isinstance(text, str) else text

    def err(self, text: str) -> None:
        self.stderr += text.encode()


CommandFunction = Callable[[Invocation], int]


class Shell:
    """Runs parsed scripts against a command table and a file system."""

    def __init__(
        self,
        commands: Mapping[str, CommandFunction],
        files: FileSystem,
        environment: Mapping[str, str] | None = None,
        budget: ByteBudget | None = None,
        caller: Caller | None = None,
    ) -> None:
        self.commands = commands
        self.files = files
        self.variables: dict[str, str] = dict(environment or {})
        self.caller = caller
        self.status = 0
        self.budget = budget if budget is not None else ByteBudget(MAX_COMMAND_BYTES)

    def buffer(self) -> ChargedBuffer:
        return ChargedBuffer(self.budget)

    def run(self, source: str, merge_output: bool = False) -> tuple[bytes, bytes, int]:
        """Run a command line; returns (stdout, stderr, exit status) like `sh -c`.

        With `merge_output` both streams go to stdout in the order they were written, as when
        a program's stdout and stderr share one pipe. A command line that outgrows its budget
        stops there; its output is dropped for one line that says why.
        """
        stdout = self.buffer()
        stderr = stdout if merge_output else self.buffer()
        try:
            status = self.run_into(source, stdout, stderr)
        except BudgetExceeded as exc:
            error = f"{SHELL_NAME}: out of memory: {exc}; output dropped\n".encode()
            return (error, b"", 1) if merge_output else (b"", error, 1)
        return bytes(stdout), b"" if merge_output else bytes(stderr), status

    def run_into(self, source: str, stdout: bytearray, stderr: bytearray) -> int:
        """Run a command line, writing into the given buffers; raises BudgetExceeded."""
        try:
            script = parse(source)
        except ShellSyntaxError as exc:
            stderr += f"{SHELL_NAME}: {exc}\n".encode()
            return 1
        try:
            self.status = self._run_script(script, b"", stdout, stderr, depth=0)
        except ShellExit as exit_:
            self.status = exit_.status
        return self.status & 0xFF

    def _run_script(
        self, script: Script, stdin: bytes, stdout: bytearray, stderr: bytearray, depth: int
    ) -> int:
        for item in script.items:
            self.status = self._run_pipeline(item.first, stdin, stdout, stderr, depth)
            for operator, pipeline in item.rest:
                if (operator == "&&") == (self.status == 0):
                    self.status = self._run_pipeline(pipeline, stdin, stdout, stderr, depth)
        return self.status

    def _run_pipeline(
        self, pipeline: Pipeline, stdin: bytes, stdout: bytearray, stderr: bytearray, depth: int
    ) -> int:
        data = stdin
        *feeding, last = pipeline.commands
        for command in feeding:
            pipe = self.buffer()
            status = self._run_command(command, data, pipe, stderr, depth)
            self.budget.charge(len(pipe))  # the copy the next command reads
            data = bytes(pipe)
        status = self._run_command(last, data, stdout, stderr, depth)
        return int(status == 0) if pipeline.negated else status

    def _run_command(
        self,
        command: SimpleCommand | Subshell,
        stdin: bytes,
        stdout: bytearray,
        stderr: bytearray,
        depth: int,
    ) -> int:
        if isinstance(command, Subshell):
            saved = dict(self.variables)
            out, err = self.buffer(), self.buffer()
            try:
                status = self._run_script(command.script, stdin, out, err, depth)
            except ShellExit as exit_:
                status = exit_.status
            self.variables = saved
            return self._deliver(command.redirects, stdin, out, err, stdout, stderr, depth, status)

        words: list[str] = []
        for word in command.words:
            words.extend(self.expand(word, stderr, depth))
        values = {
            name: self.expand_single(value, stderr, depth) for name, value in command.assignments
        }
        if not words:
            self.variables.update(values)
            return self._deliver(
                command.redirects, stdin, self.buffer(), self.buffer(), stdout, stderr, depth, 0
            )
        invocation_stdin = stdin
        for redirect in command.redirects:
            if redirect.op == "<" and redirect.fd == 0:
                path = self.expand_single(redirect.target, stderr, depth)
                try:
                    invocation_stdin = self.files.read(absolute(path))
                except OSError as exc:
                    stderr += f"{SHELL_NAME}: can't open {path}: {exc.strerror}\n".encode()
                    return 1
        invocation = Invocation(
            argv=words,
            stdin=invocation_stdin,
            budget=self.budget,
            environment={**self.variables, **values},  # `NAME=value command` sets it for one
            caller=self.caller,
        )
        status = self._call(invocation, depth)
        return self._deliver(
            command.redirects,
            stdin,
            invocation.stdout,
            invocation.stderr,
            stdout,
            stderr,
            depth,
            status,
        )

    def _call(self, invocation: Invocation, depth: int) -> int:
        name = invocation.argv[0]
        if name == "exit":
            raise ShellExit(int(invocation.argv[1]) if invocation.argv[1:] else self.status)
        program = (
            name.rsplit("/", 1)[-1] if name.startswith(("/system/bin/", "/system/xbin/")) else name
        )
        function = self.commands.get(program)
        if function is None:
            invocation.err(f"{SHELL_NAME}: {name}: inaccessible or not found\n")
            return 127
        return function(invocation)

    def _deliver(
        self,
        redirects: tuple[Redirect, ...],
        stdin: bytes,
        out: bytearray,
        err: bytearray,
        stdout: bytearray,
        stderr: bytearray,
        depth: int,
        status: int,
    ) -> int:
        """Route a command's output through its redirections, in order, like sh does."""
        targets: dict[int, tuple[str, str | None]] = {1: ("stdout", None), 2: ("stderr", None)}
        for redirect in redirects:
            if redirect.op in ("<", "<&"):
                continue
            target = self.expand_single(redirect.target, stderr, depth)
            if redirect.op == ">&":
                if target not in ("1", "2"):
                    stderr += f"{SHELL_NAME}: {target}: bad file descriptor\n".encode()
                    return 1
                targets[redirect.fd] = targets[int(target)]
                continue
            path = absolute(target)
            try:
                if redirect.op == ">":
                    self.files.write(path, b"", append=False)
            except OSError as exc:
                stderr += f"{SHELL_NAME}: can't create {target}: {exc.strerror}\n".encode()
                return 1
            targets[redirect.fd] = ("file", path)
        for data, fd in ((out, 1), (err, 2)):
            kind, destination = targets.get(fd, ("stdout", None))
            if kind == "stdout":
                stdout += data
            elif kind == "stderr":
                stderr += data
            elif destination is not None and data:
                try:
                    self.files.write(destination, bytes(data), append=True)
                except OSError as exc:
                    stderr += f"{SHELL_NAME}: write error: {exc.strerror}\n".encode()
                    return 1
        return status

    # --- expansion ----------------------------------------------------------------------

    def expand_single(self, word: Word, stderr: bytearray, depth: int) -> str:
        """A word where one string is needed (assignments, redirection targets)."""
        return "".join(self._part_text(part, stderr, depth)[0] for part in word.parts)

    def _part_text(self, part: WordPart, stderr: bytearray, depth: int) -> tuple[str, bool]:
        """The text of one part, charged as a new copy, and whether it may be split."""
        text, splits = self._segment_text(part, stderr, depth)
        # Charged per use: `$X$X$X...` builds a word as long as all its copies together.
        self.budget.charge(len(text))
        return text, splits

    def _segment_text(self, part: WordPart, stderr: bytearray, depth: int) -> tuple[str, bool]:
        """The text of one part, and whether it came from an unquoted expansion."""
        if isinstance(part, Literal):
            return part.text, False
        if isinstance(part, Parameter):
            return self._parameter(part.name), not part.quoted
        if depth >= MAX_SUBSTITUTION_DEPTH:
            raise ShellExit(1)
        out = self.buffer()
        saved = dict(self.variables)
        try:
            self.status = self._run_script(part.script, b"", out, stderr, depth + 1)
        except ShellExit as exit_:
            self.status = exit_.status
        self.variables = saved
        self.budget.charge(len(out))  # the decoded copy
        return out.decode("utf-8", "replace").rstrip("\n"), not part.quoted

    def _parameter(self, name: str) -> str:
        if name == "?":
            return str(self.status)
        if name == "$":
            return "1"
        if name in ("#", "!"):
            return "0"
        if name == "0":
            return SHELL_NAME
        return self.variables.get(name, "")

    def expand(self, word: Word, stderr: bytearray, depth: int) -> list[str]:
        """Expand one word into fields: substitution, field splitting, pathname expansion."""
        fields: list[list[tuple[str, bool]]] = []  # runs of text, each with "may glob"
        current: list[tuple[str, bool]] = []
        started = False  # a quoted part, even empty, makes a field
        for part in word.parts:
            text, splits = self._part_text(part, stderr, depth)
            if not splits:
                if text:
                    current.append((text, isinstance(part, Literal) and not part.quoted))
                started = started or part.quoted or bool(text)
                continue
            pieces = re.split(r"[ \t\n]+", text)
            for index, piece in enumerate(pieces):
                if index > 0 and (current or started):
                    fields.append(current)
                    current, started = [], False
                if piece:
                    current.append((piece, True))
                started = started or bool(piece)
        if current or started:
            fields.append(current)
        result: list[str] = []
        for runs in fields:
            result.extend(self._glob(runs))
        return result

    def _glob(self, runs: list[tuple[str, bool]]) -> list[str]:
        text = "".join(run for run, _ in runs)
        if not any(may and ("*" in run or "?" in run) for run, may in runs):
            return [text]
        pattern = "".join(
            "".join(_GLOB.get(char, re.escape(char)) for char in run) if may else re.escape(run)
            for run, may in runs
        )
        relative = not text.startswith("/")
        regex = re.compile(("/" if relative else "") + pattern)
        matches = sorted(
            path[1:] if relative else path for path in self.files.paths() if regex.fullmatch(path)
        )
        self.budget.charge(sum(len(match) for match in matches))
        return matches or [text]


def absolute(path: str) -> str:
    """The shell's working directory is `/`, as for `adb shell`."""
    return path if path.startswith("/") else "/" + path
