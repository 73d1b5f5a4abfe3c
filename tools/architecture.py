"""The code's shape, held by `mise run lint`: the harness's layers, no import cycles, no module
too long to read at once, every sub-package saying what it holds and what it may import
("May import:" in its docstring), every module named in its package's docstring, an agent
package that never imports the harness, one engine that plays trials (`MAY_PLAY`: who may
call `playing.play`'s players, each with its reason), thin commands (`_command_problems`), and
each capability in one package that few modules outside it import (`CAPABILITIES`).

Named, precisely: each module and sub-package of `ops_eval` and of an agent package (`agents/*`)
has its name -- the file's name without `.py`, the folder's name -- as a whole word in the
docstring of the package it sits in, a word being a run of letters, digits and underscores: the
module `calls` is named by "`calls`" or "calls.py", not by "callsite" or "`*_calls`". So a
package's docstring is its table of contents, and a module added without a word there fails.

The layers of `ops_eval`, bottom to top, are declared once here (`LAYERS`); docs/architecture.md
draws them. A module may import its own layer and the layers below it, never one above. Imports
are read from the source as text -- `TYPE_CHECKING` blocks and imports inside functions count,
because a cycle of type-only imports is still a cycle in the design.

    python tools/architecture.py          # exit 0 clean, 1 a rule broken (each named)
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MAX_LINES = 350
ADAPTER = "agents"  # the one sub-package of the harness that may import an agent package
MAX_ADAPTER_MODULES = 10
PLAYERS = ("play_trial", "play_turn", "play_session")  # `playing.play`'s players
COMMANDS = "commands"  # a command parses, calls the library and prints:
MAX_HANDLER_LINES = 60  # no function of a command longer than this
MAX_COMMANDS_LINES = 1200  # and `commands/` at most this long in all
# The modules of the harness that may name them, each with its reason: one loop over trials.
MAY_PLAY = {
    "playing.play": "defines them: a trial's turns, or a scripted session's, one after another",
    "running.trials": "the engine: the one loop over trials and units of work (the red team's "
    "attacks, deterministic and live), and its step MLflow's rows call",
}

# Each capability lives in one package, its public surface in the package's `__init__`; outside
# it, at most `MAX_CAPABILITY_USERS` modules import from it, besides the commands that expose it
# and the package root's public surface (`_capability_problems`).
CAPABILITIES = {
    "red team": "redteam",
    "tracking": "outputs.tracking",
    "reports": "outputs.report",
    "mutation": "mutation",
    "judge": "judging",
    "scenarios": "playing.scenarios",
}
MAX_CAPABILITY_USERS = 2

# ops_eval's sub-packages, bottom to top (the package's own `__init__` sits above them all).
LAYERS: tuple[str, ...] = (
    "agents",  # the adapter: the only modules importing an agent package (ports, facades)
    "base",  # exit codes, settings, statistics, CLI input checks, the strict model
    "core",  # calls, turns, cases, contracts, criteria, checks, claims, the plan
    "models",  # model selection, the embedded server, the router, the judge, stand-ins
    "playing",  # the ADK session, playing a trial, tool faults, spans
    "scorers",  # the registry and one module per scorer
    "validation",  # reading eval sets into a plan, the validator and its rules
    "results",  # the run record, its index, aggregation, merge, provenance
    "running",  # a run's options, its trials scored, its record built
    "deciding",  # the gate, the readers' measurement, and the ledger
    "judging",  # the LLM judge: client, the run's judge, the gate's check, calibration, A/B
    "outputs",  # report, history, MLflow tracking
    "redteam",  # the deterministic and live injection suites
    "mutation",  # mutation testing: mutants, played offline and live, the red team, the ledger
    "commands",  # one module per CLI command
    "cli",  # the parser only
)


@dataclass(frozen=True)
class Tree:
    """Modules by dotted name: one package (`read`), or several side by side (`merged`)."""

    name: str
    modules: dict[str, Path] = field(default_factory=dict)

    @classmethod
    def read(cls, root: Path, name: str) -> Tree:
        tree = cls(name)
        for path in sorted(root.rglob("*.py")):
            parts = [name, *path.relative_to(root).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            tree.modules[".".join(parts)] = path
        return tree

    @classmethod
    def merged(cls, trees: list[Tree]) -> Tree:
        return cls("", {m: p for tree in trees for m, p in tree.modules.items()})

    def imported_names(self, module: str) -> set[str]:
        """Every dotted name `module` imports, anywhere in its source, relative ones resolved:
        import statements, and `importlib.import_module` with a literal name. (A lazy-export
        map names only the package's own submodules, which load with the package anyway.)"""
        path = self.modules[module]
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]

        def absolute(name: str, level: int) -> str:
            if not level:
                return name
            parts = package.split(".")
            return ".".join(parts[: len(parts) - level + 1] + [name]).rstrip(".")

        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = absolute(node.module or "", node.level)
                named = [f"{base}.{alias.name}" for alias in node.names]
                found.update(named)
                if not all(name in self.modules for name in named):
                    found.add(base)  # a name defined in `base` itself
            elif isinstance(node, ast.Call) and _is_import_module(node):
                name = node.args[0].value  # type: ignore[attr-defined]
                found.add(absolute(name.lstrip("."), len(name) - len(name.lstrip("."))))
        return found

    def imports(self, module: str) -> set[str]:
        """Every module of this tree that `module` imports. Its own packages load with it, so
        they are no edge -- except the root: a name taken from the root's public surface is an
        import of everything it exports."""
        found: set[str] = set()
        for target in self.imported_names(module):
            while target not in self.modules and "." in target:
                target = target.rpartition(".")[0]
            ancestor = (module + ".").startswith(target + ".") and target != self.name
            if target in self.modules and target != module and not ancestor:
                found.add(target)
        return found


def _is_import_module(node: ast.Call) -> bool:
    """`importlib.import_module("a.b")` or `import_module(".b", __package__)`: a literal name."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    first = node.args[0] if node.args else None
    return (
        called == "import_module"
        and isinstance(first, ast.Constant)
        and isinstance(first.value, str)
    )


def layer_of(tree: Tree, module: str) -> int:
    """Index in LAYERS; the package root sits above every layer."""
    parts = module.split(".")
    if len(parts) == 1:
        return len(LAYERS)
    return LAYERS.index(parts[1]) if parts[1] in LAYERS else -1


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _adapter_problems(harness: Tree, agents: list[Tree]) -> list[str]:
    """The harness reaches agents through one adapter: no other module imports an agent package,
    and the adapter stays small (`ADAPTER`, at most `MAX_ADAPTER_MODULES` modules)."""
    adapter = f"{harness.name}.{ADAPTER}"
    inside = [m for m in harness.modules if m == adapter or m.startswith(adapter + ".")]
    out = []
    if len(inside) > MAX_ADAPTER_MODULES:
        out.append(f"{adapter}: {len(inside)} modules (at most {MAX_ADAPTER_MODULES})")
    names = {a.name for a in agents}
    for module in sorted(set(harness.modules) - set(inside)):
        reached = sorted(
            {".".join(n.split(".")[:2]) for n in harness.imported_names(module)}
            & {m for a in agents for m in a.modules}
        ) or sorted(n for n in harness.imported_names(module) if n.split(".")[0] in names)
        if reached:
            out.append(
                f"{module} imports {', '.join(reached)}: only {adapter} imports an agent package"
            )
    return out


def _player_problems(harness: Tree) -> list[str]:
    """One engine plays trials: outside `MAY_PLAY`, no module names `play_trial` or
    `play_turn` (a call, an attribute, an import)."""
    allowed = {f"{harness.name}.{m}" for m in MAY_PLAY}
    out = []
    for module in sorted(set(harness.modules) - allowed):
        tree = ast.parse(harness.modules[module].read_text(encoding="utf-8"))
        named = {
            getattr(node, "id", None) or getattr(node, "attr", None) or getattr(node, "name", "")
            for node in ast.walk(tree)
            if isinstance(node, ast.Name | ast.Attribute | ast.alias)
        } & set(PLAYERS)
        if named:
            out.append(
                f"{module} calls {', '.join(sorted(named))}: only the engine plays trials "
                f"({harness.name}.running.trials; allowed: {', '.join(sorted(MAY_PLAY))})"
            )
    return out


def _command_problems(harness: Tree) -> list[str]:
    """Thin commands: no function (handler, parser, helper) of `commands` over
    `MAX_HANDLER_LINES` lines, the package at most `MAX_COMMANDS_LINES` lines in all, no
    command importing another command module -- what a second command needs is the library's --
    and none importing a module inside a package of the library: only what a package's
    `__init__` exports (its public surface), so the library can move its modules freely."""
    package = f"{harness.name}.{COMMANDS}"
    mine = [m for m in sorted(harness.modules) if m == package or m.startswith(package + ".")]
    out, total = [], 0
    for module in mine:
        text = harness.modules[module].read_text(encoding="utf-8")
        total += len(text.splitlines())
        for node in ast.walk(ast.parse(text)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_HANDLER_LINES:
                out.append(
                    f"{module}.{node.name}: {length} lines (a command's function at most "
                    f"{MAX_HANDLER_LINES}: move the work into the library)"
                )
        imported = harness.imports(module)
        sideways = sorted(t for t in imported if t in mine and t != package)
        if sideways:
            out.append(
                f"{module} imports {', '.join(sideways)}: a command imports the library, "
                "never another command"
            )
        inner = sorted(
            t for t in imported if t not in mine and harness.modules[t].name != "__init__.py"
        )
        if inner:
            out.append(
                f"{module} imports {', '.join(inner)}: a command imports only the library's "
                "public surface, a package's `__init__` (export the name there)"
            )
    if total > MAX_COMMANDS_LINES:
        out.append(f"{package}: {total} lines in all (at most {MAX_COMMANDS_LINES})")
    return out


def capability_users(harness: Tree, package: str) -> list[str]:
    """The modules outside `package` (a dotted name under the harness) that import from it,
    the commands and the harness's root aside."""
    inside = f"{harness.name}.{package}"
    exempt = (inside, f"{harness.name}.{COMMANDS}", f"{harness.name}.cli")

    def within(module: str, prefix: str) -> bool:
        return module == prefix or module.startswith(prefix + ".")

    return sorted(
        module
        for module in harness.modules
        if module != harness.name
        and not any(within(module, p) for p in exempt)
        and any(within(t, inside) for t in harness.imports(module))
    )


def _capability_problems(harness: Tree) -> list[str]:
    """Each capability in one package: at most `MAX_CAPABILITY_USERS` modules outside it import
    from it (`CAPABILITIES`), so "where is it?" has one answer and its surface stays small."""
    out = []
    for name, package in CAPABILITIES.items():
        users = capability_users(harness, package)
        if f"{harness.name}.{package}" not in harness.modules:
            out.append(f"{name}: its package {harness.name}.{package} does not exist")
        elif len(users) > MAX_CAPABILITY_USERS:
            out.append(
                f"{name} ({harness.name}.{package}): imported by {len(users)} modules outside "
                f"it, commands aside (at most {MAX_CAPABILITY_USERS}): {', '.join(users)}"
            )
    return out


def docstring(path: Path) -> str:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"), str(path))) or ""


def unnamed(tree: Tree) -> list[str]:
    """Each module or sub-package of `tree` whose package's docstring does not name it."""
    out: list[str] = []
    for module in sorted(tree.modules):
        package, _, name = module.rpartition(".")
        if package in tree.modules and not re.search(
            rf"(?<!\w){re.escape(name)}(?!\w)", docstring(tree.modules[package])
        ):
            out.append(f"{module}: not named in the docstring of its package, {package}")
    return out


def problems(repo: Path, harness: Tree, agents: list[Tree]) -> list[str]:
    """Every broken rule, one line each."""
    out: list[str] = []
    graph = {m: harness.imports(m) for m in harness.modules}
    for module in sorted(harness.modules):
        if layer_of(harness, module) < 0:
            out.append(f"{module}: not in a declared layer ({', '.join(LAYERS)})")
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if layer_of(harness, target) > layer_of(harness, module) >= 0:
                out.append(
                    f"{module} imports {target}: up from layer "
                    f"{LAYERS[layer_of(harness, module)]!r} to a higher one"
                )
    out += [f"import cycle: {' -> '.join(c)}" for c in cycles(graph)]
    for module, path in sorted(harness.modules.items()):
        if (
            path.name == "__init__.py"
            and module != harness.name
            and "May import:" not in docstring(path)
        ):
            out.append(f"{module}: its docstring says what it holds, not what it may import")
    for tree in (harness, *agents):
        out += unnamed(tree)
    together = Tree.merged(agents)  # the agent packages import each other: one graph
    out += [
        f"import cycle: {' -> '.join(c)}"
        for c in cycles({m: together.imports(m) for m in together.modules})
    ]
    out += _adapter_problems(harness, agents)
    out += _player_problems(harness)
    out += _command_problems(harness)
    out += _capability_problems(harness)
    for agent in agents:
        for module in sorted(agent.modules):
            names = agent.imported_names(module)
            if any(n == harness.name or n.startswith(harness.name + ".") for n in names):
                out.append(f"{module} imports the harness ({harness.name}): agents never do")
    for tree in (harness, *agents):
        for path in sorted(tree.modules.values()):
            count = len(path.read_text(encoding="utf-8").splitlines())
            if count > MAX_LINES:
                out.append(f"{path.relative_to(repo)}: {count} lines (at most {MAX_LINES})")
    return out


def main(repo: Path = REPO) -> int:
    harness = Tree.read(repo / "evals" / "ops_eval", "ops_eval")
    agents = [
        Tree.read(path.parent, path.parent.name)
        for path in sorted((repo / "agents").glob("*/__init__.py"))
    ]
    found = problems(repo, harness, agents)
    for line in found:
        print(line)
    if found:
        print(f"{len(found)} architecture problem(s)", file=sys.stderr)
        return 1
    modules = len(harness.modules) + sum(len(a.modules) for a in agents)
    print(
        f"architecture ok: {len(harness.modules)} harness modules in {len(LAYERS)} layers, "
        f"{modules} modules in all: no cycle, no import up a layer, none over {MAX_LINES} lines, "
        "each named in its package's docstring, one engine playing trials, thin commands, "
        f"{len(CAPABILITIES)} capabilities each in one package"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else REPO))
