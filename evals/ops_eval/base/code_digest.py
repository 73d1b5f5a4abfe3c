"""What a piece of code reads, as one hash: the definitions of every project module it can reach.

A scorer's verdicts depend on more than its own module: `facts` is a few lines over the claims
reader, `grounded` reads tool results with the answer guard's reading, `complete` with the
agent's residue definition. Hashing the scorer's module alone let a change to the claims reader
change verdicts while the gate saw "scorers unchanged". So a digest covers the scorer's module
and every module of the project (`PROJECT`) it imports -- at the top, inside functions, through
a package's lazy exports -- transitively; type-only imports (`TYPE_CHECKING`) run nothing and
are left out. A name imported from a module that only re-exports (the adapter's facades, a
package's `__init__`) is followed to the module that defines it, not to everything the
re-exporting module gathers: the digest follows what a scorer reads, not where it is found.
Code a module runs without importing it -- the judge that `llm_judge` is handed in the plan --
is declared in the module (`DIGEST_FOLLOWS`: a tuple of dotted module names) and followed as if
imported; the declaration itself is not hashed, what it names is.

What is hashed is behaviour, as near as source can say it: each top-level definition (function,
class, assignment) by its name and its syntax tree, docstrings and import statements left out,
as a sorted list. So reformatting, rewording a docstring, or moving a definition to another
module changes nothing (a package's `_EXPORTS` table, which only says where a name lives, is
not hashed); changing what any reachable definition does changes the digest.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
from functools import cache
from pathlib import Path

PROJECT = ("ops_eval", "ops_copilot", "triage_report", "agentport", "opskit")
FOLLOWS = "DIGEST_FOLLOWS"  # a module's declared dependencies, followed as if imported


@cache
def _root(top: str) -> Path | None:
    """The folder of a top-level project package, found without importing it."""
    spec = importlib.util.find_spec(top) if top in PROJECT else None
    locations = spec.submodule_search_locations if spec else None
    return Path(next(iter(locations))) if locations else None


@cache
def _source(module: str) -> tuple[Path, bool] | None:
    """(file, is a package) of a project module; None for anything else. Read off the folders,
    never by importing: a digest runs no code."""
    top, *rest = module.split(".")
    root = _root(top)
    if root is None:
        return None
    where = root.joinpath(*rest)
    if (where / "__init__.py").is_file():
        return where / "__init__.py", True
    if where.with_suffix(".py").is_file() and rest:
        return where.with_suffix(".py"), False
    return None


def _type_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


@cache
def _parsed(module: str) -> ast.Module:
    found = _source(module)
    assert found is not None
    return ast.parse(found[0].read_text(encoding="utf-8"))


def _lazy_exports(module: str) -> dict[str, str]:
    """A package's `_EXPORTS` map (name -> submodule), read from its source."""
    for node in _parsed(module).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets)
            and isinstance(node.value, ast.Dict)
        ):
            return {
                k.value: v.value
                for k, v in zip(node.value.keys, node.value.values, strict=True)
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
            }
    return {}


@cache
def _reexported(module: str) -> dict[str, str] | None:
    """name -> the module it comes from, for a module whose body only imports names (besides
    its docstring and `__all__`); None for any other module, or one outside the project."""
    found = _source(module)
    if found is None:
        return None
    path, is_package = found
    package = module if is_package else module.rpartition(".")[0]
    origins: dict[str, str] = {}
    for node in _parsed(module).body:
        if isinstance(node, ast.ImportFrom):
            parts = package.split(".")
            base = node.module or ""
            if node.level:
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                origins[alias.asname or alias.name] = whole if _source(whole) else base
        elif not (_says_only(node) or _is_all(node) or isinstance(node, ast.Import)):
            return None
    return origins


def _is_all(node: ast.stmt) -> bool:
    """`__all__`, or `DIGEST_FOLLOWS`: declarations, not behaviour."""
    return isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] in (
        ["__all__"],
        [FOLLOWS],
    )


_LOCATORS = (["_EXPORTS"], ["__getattr__"], ["__all__"])


def _locates(node: ast.stmt, package: bool) -> bool:
    """A package's lazy-export plumbing says where names live, not what they do: its table
    (`_EXPORTS`: name -> the submodule holding it), the PEP 562 `__getattr__` that loads a name
    from there (assigned, `lazy_getattr(...)`, or defined in a package's `__init__`; a module's
    own `__getattr__`, such as the agent's `root_agent`, is behaviour), and `__all__`. What a
    name does is hashed where it is defined, which an import through the table reaches
    (`_imports`). So moving a module, or exporting a name lazily, changes no digest."""
    if isinstance(node, ast.FunctionDef):
        return package and node.name == "__getattr__"
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    else:
        return False
    return [ast.unparse(t) for t in targets] in _LOCATORS


def _declared(module: str) -> list[str]:
    """The modules `module` declares it runs without importing them (`DIGEST_FOLLOWS`)."""
    for node in _parsed(module).body:
        if (
            isinstance(node, ast.Assign)
            and [ast.unparse(t) for t in node.targets] == [FOLLOWS]
            and isinstance(node.value, ast.Tuple | ast.List)
        ):
            return [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    return []


@cache
def _imports(module: str) -> frozenset[str]:
    """The project modules `module` imports when it runs (type-only imports left out)."""
    path, is_package = _source(module) or (None, False)
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()

    def absolute(name: str | None, level: int) -> str:
        if not level:
            return name or ""
        parts = package.split(".")
        return ".".join(parts[: len(parts) - level + 1] + ([name] if name else []))

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_only(node):
            for inner in node.orelse:
                visit(inner)
            return
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(node.module, node.level)
            origins = _reexported(base)
            if origins is not None and all(a.name in origins for a in node.names):
                names.update(origins[a.name] for a in node.names)
                return
            names.add(base)
            for alias in node.names:
                names.add(f"{base}.{alias.name}")
                package_of = _source(base)
                if package_of and package_of[1] and (sub := _lazy_exports(base).get(alias.name)):
                    names.add(f"{base}.{sub}")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(_parsed(module))
    names.update(_declared(module))
    reached = set()
    for name in names:
        parts = name.split(".")
        for n in range(1, len(parts) + 1):  # importing a.b.c runs a and a.b too
            if _source(".".join(parts[:n])) is not None:
                reached.add(".".join(parts[:n]))
    return frozenset(reached)


@cache
def reach(module: str) -> frozenset[str]:
    """`module` and every project module it imports, transitively."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name not in seen and _source(name) is not None:
            seen.add(name)
            todo += _imports(name)
    return frozenset(seen)


@cache
def _definitions(module: str) -> tuple[tuple[str, str], ...]:
    """(name, syntax tree) of each top-level statement but imports, docstrings left out."""
    found = []
    source = _source(module)
    assert source is not None
    for node in ast.parse(source[0].read_text(encoding="utf-8")).body:  # a copy of its own
        if (
            isinstance(node, ast.Import | ast.ImportFrom)
            or _says_only(node)
            or _is_all(node)
            or _locates(node, source[1])
        ):
            continue
        clean = _without_docstrings(node)
        name = getattr(node, "name", None) or ",".join(
            ast.unparse(t) for t in getattr(node, "targets", [getattr(node, "target", node)])
        )
        found.append((str(name), ast.dump(clean, annotate_fields=False)))
    return tuple(found)


def _without_docstrings(node: ast.AST) -> ast.AST:
    """`node` without its string statements (docstrings of functions, classes and attributes):
    they do nothing."""
    for inner in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(inner, field, None)
            if isinstance(body, list) and any(_says_only(s) for s in body):
                kept = [s for s in body if not _says_only(s)]
                setattr(inner, field, kept or ([ast.Pass()] if field == "body" else []))
    return node


def _says_only(statement: object) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


@cache
def digest(module: str) -> str:
    """The sha256 of every definition `module` can reach in the project (see the docstring)."""
    found = sorted(d for name in reach(module) for d in _definitions(name))
    return hashlib.sha256(json.dumps(found).encode()).hexdigest()
