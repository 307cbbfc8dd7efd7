"""The import graph keeps the architecture of docs/ARCHITECTURE.md.

Every `import` and `from ... import` in the packages, at module level or inside a function
(lazy imports and `TYPE_CHECKING` blocks included), is an edge from the importing module's
layer to the imported one's. Each layer may import only the layers `MAY_IMPORT` names; an edge
outside them fails the test, unless `KNOWN_VIOLATIONS` lists it as a dependency still to be
removed. The simulator and serving have no import cycle, and the weight schemes are listed in
one module only.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

PACKAGES = ("agent", "devices", "simulator", "serving", "evals", "fixtures")
# The CLI: the only place that composes everything. The rest of agent/ is the agent library.
CLI_MODULES = ("agent.cli", "agent.__main__", "agent.commands")

MAY_IMPORT: dict[str, frozenset[str]] = {
    "cli": frozenset({"cli", "agent", "devices", "simulator", "serving", "evals"}),
    "agent": frozenset({"agent", "devices"}),
    "devices": frozenset({"devices"}),
    "simulator": frozenset({"simulator", "devices"}),
    "serving": frozenset({"serving"}),  # reaches the agent only over HTTP
    "evals": frozenset({"evals", "agent", "simulator", "devices"}),
    "fixtures": frozenset({"fixtures"}),
}
# Test data: it imports nothing of ours, and any layer may read it.
READABLE_BY_ALL = frozenset({"fixtures"})

# Forbidden edges the tree still has, as (importing module, imported layer). To be emptied,
# never extended: the test also fails once an entry no longer has an edge, so that it is
# removed.
KNOWN_VIOLATIONS: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True)
class Edge:
    path: Path
    line: int
    importer: str
    imported: str

    def describe(self) -> str:
        source = layer_of(self.importer)
        allowed = ", ".join(sorted(MAY_IMPORT[source] - {source})) or "nothing of ours"
        return (
            f"{self.path}:{self.line}: {self.importer} imports {self.imported} "
            f"({source} may import only {allowed})"
        )


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    if any(module == cli or module.startswith(cli + ".") for cli in CLI_MODULES):
        return "cli"
    return module.split(".")[0]


def imported_from(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The module a `from ... import` in `module` imports from, a relative one resolved."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def imported_modules(source: str, module: str, is_package: bool) -> list[tuple[int, str]]:
    """(line, module) of every import in `source`, relative imports resolved."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append((node.lineno, imported_from(node, module, is_package)))
    return found


@functools.cache
def import_edges(root: Path) -> tuple[Edge, ...]:
    """Every import from one of our packages into one of our packages under `root`."""
    edges: list[Edge] = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            module = module_name(path, root)
            source = path.read_text(encoding="utf-8")
            for line, imported in imported_modules(source, module, path.name == "__init__.py"):
                if imported.split(".")[0] in PACKAGES:
                    edges.append(Edge(path.relative_to(root), line, module, imported))
    return tuple(edges)


def forbidden(edges: Iterable[Edge]) -> list[Edge]:
    return [
        edge
        for edge in edges
        if layer_of(edge.imported) not in MAY_IMPORT[layer_of(edge.importer)] | READABLE_BY_ALL
    ]


def test_no_package_imports_a_layer_it_may_not() -> None:
    new = [
        edge.describe()
        for edge in forbidden(import_edges(REPO_ROOT))
        if (edge.importer, layer_of(edge.imported)) not in KNOWN_VIOLATIONS
    ]
    assert not new, "forbidden imports (see docs/ARCHITECTURE.md):\n" + "\n".join(new)


def test_every_known_violation_still_exists_so_the_list_only_shrinks() -> None:
    present = {
        (edge.importer, layer_of(edge.imported)) for edge in forbidden(import_edges(REPO_ROOT))
    }
    gone = sorted(KNOWN_VIOLATIONS - present)
    assert not gone, f"no longer imported, remove from KNOWN_VIOLATIONS: {gone}"


def test_every_layer_of_the_tree_has_a_rule() -> None:
    layers = {layer_of(edge.importer) for edge in import_edges(REPO_ROOT)}
    assert layers <= set(MAY_IMPORT)
    assert {"cli", "agent", "devices", "simulator", "serving", "evals"} <= layers


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        ("devices/phone.py", "import agent.loop\n", "agent.loop"),
        ("devices/phone.py", "def lazy():\n    from evals import runner\n", "evals"),
        (
            "agent/guards.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import simulator\n",
            "simulator",
        ),
        ("serving/launcher.py", "from agent.cli import UsageError\n", "agent.cli"),
        ("simulator/apps/clock.py", "from ...evals import oracle\n", "evals"),
        ("agent/loop.py", "from .commands import run\n", "agent.commands"),
        (
            "evals/androidworld/suite.py",
            "from agent.commands.model_server import model_client_settings\n",
            "agent.commands.model_server",
        ),
        ("serving/launcher.py", "from devices.errors import UsageError\n", "devices.errors"),
    ],
)
def test_a_forbidden_import_is_caught_wherever_it_is_written(
    tmp_path: Path, path: str, source: str, expected: str
) -> None:
    for package in PACKAGES:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    target = tmp_path / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(source)
    assert [edge.imported for edge in forbidden(import_edges(tmp_path))] == [expected]


def module_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module of `package` -> the modules of `package` it imports (lazy imports included).
    `from p import m` of a submodule `m` is an edge to `p.m`, not to the package `p`."""
    paths = {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}

    def home(name: str) -> str:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {module: set() for module in paths}
    for module, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = imported_from(node, module, path.name == "__init__.py")
                names = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            graph[module] |= {home(name) for name in names} - {"", module}
    return graph


def import_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of `graph` as [a, b, ..., a], or [] when it has none."""
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> list[str]:
        for imported in sorted(graph[module]):
            if imported in path:
                return [*path[path.index(imported) :], imported]
            if imported not in done:
                cycle = visit(imported, [*path, imported])
                if cycle:
                    return cycle
        done.add(module)
        return []

    for module in sorted(graph):
        cycle = [] if module in done else visit(module, [module])
        if cycle:
            return cycle
    return []


def test_the_simulator_has_no_import_cycle() -> None:
    # The runtime sits below the apps and System UI above them: a cycle, even through a lazy
    # import, means a lower layer reaches up.
    cycle = import_cycle(module_graph(REPO_ROOT, "simulator"))
    assert not cycle, "import cycle: " + " -> ".join(cycle)


def test_an_import_cycle_is_found_through_a_lazy_import(tmp_path: Path) -> None:
    (tmp_path / "simulator" / "apps").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "runtime.py": "def open_panel():\n    from simulator.apps import shade\n",
        "apps/__init__.py": "",
        "apps/shade.py": "from simulator.apps.messages import open_conversation\n",
        "apps/messages.py": "from ..runtime import Page\n",
    }
    for name, source in files.items():
        (tmp_path / "simulator" / name).write_text(source)
    graph = module_graph(tmp_path, "simulator")
    assert import_cycle(graph) == [
        "simulator.apps.messages",
        "simulator.runtime",
        "simulator.apps.shade",
        "simulator.apps.messages",
    ]
    graph["simulator.runtime"].clear()
    assert import_cycle(graph) == []


def test_allowed_imports_pass() -> None:
    allowed = [
        ("agent.loop", "devices.base"),
        ("agent.commands.run", "simulator"),
        ("agent.commands.serve", "serving.launcher"),
        ("evals.runner", "agent.loop"),
        ("simulator.adbd.android", "devices"),
        ("serving.launcher", "serving.checkpoint"),
        ("serving.launcher", "serving.errors"),
        ("simulator.state", "devices.errors"),
        ("evals.runner", "devices.errors"),
    ]
    edges = [Edge(Path("x.py"), 1, importer, imported) for importer, imported in allowed]
    assert forbidden(edges) == []


def test_serving_has_no_import_cycle() -> None:
    # The quantization modules layer as hardware, layout, kernels, the W4A16 op, the quantizer,
    # timings and the choice of weights: a cycle means a lower one reaches up.
    cycle = import_cycle(module_graph(REPO_ROOT, "serving"))
    assert not cycle, "import cycle: " + " -> ".join(cycle)


# The module that declares the weight schemes; every list of them derives from its own.
SCHEMES_MODULE = Path("serving/schemes.py")


def scheme_lists(source: str, names: Iterable[str]) -> list[int]:
    """The lines of tuple, list and set literals in `source` naming two or more of `names`."""
    known = set(names)
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Tuple | ast.List | ast.Set)
        and sum(isinstance(e, ast.Constant) and e.value in known for e in node.elts) >= 2
    ]


def test_only_the_schemes_module_lists_the_weight_schemes() -> None:
    from serving.schemes import SCHEMES

    found = [
        f"{path.relative_to(REPO_ROOT)}:{line}"
        for package in ("agent", "serving", "evals")
        for path in sorted((REPO_ROOT / package).rglob("*.py"))
        if path.relative_to(REPO_ROOT) != SCHEMES_MODULE
        for line in scheme_lists(path.read_text(encoding="utf-8"), SCHEMES)
    ]
    assert not found, f"lists of scheme names outside {SCHEMES_MODULE}: {found}"


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ('choices = ("auto", "bf16", "w4a16")\n', [1]),
        ('def f():\n    return ["w4a8", "w8a8"]\n', [2]),
        ('if scheme in {"w4a16", "w4a8"}:\n    pass\n', [1]),
        ('if scheme == "w4a16":\n    pass\n', []),
        ('pairs = {"F16": "bf16", "Q8_0": "w8a8"}\nprecisions = ("bf16", "fp32")\n', []),
        ('choices = ("auto", *SCHEMES)\n', []),
    ],
)
def test_a_list_of_scheme_names_is_caught(source: str, lines: list[int]) -> None:
    assert scheme_lists(source, ("bf16", "w4a16", "w4a8", "w8a8")) == lines
