"""Rules about the gate's policy (`gate.yaml`, read by `gate_config`), checked with the eval sets
it judges, so that a policy which cannot gate is caught on the PR that writes it, not on the
first run `ops-eval gate` is asked to judge.

The file beside a folder of sets applies to them; a folder without one is judged by the
project's (`evals/gate.yaml`), as `ops-eval gate` judges it -- silently, since the warning for
an ad-hoc folder already says its context is the project's. Each file is checked once, however
many folders share it:

- it reads and validates (else one malformed problem, exit 2, naming the file and field);
- the policy gates (`gate_config.policy_problems`: scorers registered, able to fail and each
  placed, the suite's metric gating, thresholds strict);
- each required case exists in the set its key names -- one of the sets validated with the
  file, else a set beside it -- and is listed once;
- each set `minimal_data` names is one of those sets.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from opskit.textfiles import resolved

from ..agents.ops_world import closest
from ..core.evalset import EvalSetFile, MalformedInput, display_path, read_evalset
from .gate_config import GATE_FILE, GateConfig, GateConfigError, policy_problems, read_gate_config
from .problems import Problem


def gate_path(folder: Path) -> Path:
    """The gate file that judges the sets in `folder`: its own, else the project's (when the
    project has one; else its own, reported missing)."""
    own = folder / GATE_FILE
    if own.exists():
        return own
    from ..base.settings import current

    theirs = current().evals_dir / GATE_FILE
    return theirs if theirs.is_file() else own


def gate_file_problems(sets: list[EvalSetFile]) -> Iterator[Problem]:
    """Every problem of each gate file the sets are judged by, each file checked once."""
    users: dict[Path, list[EvalSetFile]] = {}
    for es in sets:
        users.setdefault(resolved(gate_path(es.path.parent)), []).append(es)
    for path, using in users.items():
        yield from checked_policy(path, using)[1]


def checked_policy(path: Path, using: list[EvalSetFile]) -> tuple[GateConfig | None, list[Problem]]:
    """(the policy in the gate file at `path`, None when it does not read; every problem of
    it, judging the sets `using` and, for a required case, a set beside the file) -- read
    once: what `ops-eval gate` judges by, and refuses to when there is a problem."""
    shown = display_path(path)
    if not path.exists():
        return None, [
            Problem(shown, "missing: `ops-eval gate` would have no policy to judge a run by")
        ]
    try:
        config, _ = read_gate_config(path)
    except GateConfigError as exc:
        message = str(exc)  # "<path>: <field>: <why>"; said here with the path as it is shown
        return None, [Problem(shown, message.removeprefix(f"{path}: "), malformed=True)]
    problems = [Problem(shown, why, field=where) for where, why in policy_problems(config)]
    problems += _required_problems(config, shown, path.parent, using)
    problems += _minimal_data_problems(config, shown, path.parent, using)
    problems += _mutation_problems(config, shown)
    return config, problems


def _mutation_problems(config: GateConfig, shown: str) -> Iterator[Problem]:
    """Each mutant `mutation` names is declared (`gate_config.MUTANTS`, the names the mutants
    of `mutation/mutants/` are declared under: validation sits below mutation testing and never
    imports it), and none is both a must-kill and an equivalent (an equivalent mutant cannot be
    killed)."""
    from .gate_config import MUTANTS

    declared = MUTANTS
    floor = config.mutation
    named = [(f"mutation.must_kill[{i}]", n) for i, n in enumerate(floor.must_kill)]
    named += [(f"mutation.equivalent.{n}", n) for n in floor.equivalent]
    for where, name in named:
        if name not in declared:
            near = closest(name, declared)
            hint = f" (did you mean {near!r}?)" if near else ""
            yield Problem(shown, f"{name!r} is not a declared mutant{hint}", field=where)
    for name in sorted(set(floor.must_kill) & set(floor.equivalent)):
        yield Problem(
            shown,
            f"{name!r} is marked equivalent, so it cannot be killed: drop it from one list",
            field="mutation.must_kill",
        )


def _minimal_data_problems(
    config: GateConfig, shown: str, folder: Path, using: list[EvalSetFile]
) -> Iterator[Problem]:
    """Each set `minimal_data` names is a set beside the file or validated with it: a misspelt
    name would leave a sensitive set's runs keeping everything."""
    known = {es.path.name for es in using} | {p.name for p in folder.glob("*.evalset.json")}
    for index, name in enumerate(config.minimal_data):
        if name not in known:
            near = closest(name, known)
            hint = f" (did you mean {near!r}?)" if near else ""
            yield Problem(
                shown,
                f"{name!r} is not the file name of an eval set beside {shown} or validated with "
                f"it{hint}: its runs would keep full data",
                field=f"minimal_data[{index}]",
            )


def _required_problems(
    config: GateConfig, shown: str, folder: Path, using: list[EvalSetFile]
) -> Iterator[Problem]:
    """Each key names a set -- by file name, as `GateConfig.required_for` looks it up: one
    validated with this file (already read), else one beside it -- and each of its ids is a
    case of that set, listed once."""
    validated: dict[str, list[EvalSetFile]] = {}
    for es in using:
        validated.setdefault(es.path.name, []).append(es)
    beside = {p.name: p for p in folder.glob("*.evalset.json")}
    for name, ids in config.required_cases.items():
        where = f"required_cases.{name}"
        targets = validated.get(name)
        if targets is None and name in beside:
            try:
                targets = [read_evalset(beside[name])]
            except MalformedInput as exc:
                yield Problem(
                    shown,
                    f"its required cases cannot be checked: {exc.file}: {exc.message}",
                    field=where,
                )
                continue
        if targets is None:
            near = closest(name, validated.keys() | beside.keys())
            hint = f" (did you mean {near!r}?)" if near else ""
            yield Problem(
                shown,
                f"{name!r} is not the file name of an eval set beside {shown} or validated "
                f"with it{hint}",
                field=where,
            )
            continue
        first: dict[str, int] = {}
        for index, case_id in enumerate(ids):
            at = f"{where}[{index}]"
            if case_id in first:
                yield Problem(
                    shown, f"{case_id!r} is listed twice (first at [{first[case_id]}])", field=at
                )
                continue
            first[case_id] = index
            for es in targets:
                have = {c.declared_id for c in es.cases if isinstance(c.declared_id, str)}
                if case_id not in have:
                    near = closest(case_id, have)
                    hint = f" (did you mean {near!r}?)" if near else ""
                    yield Problem(
                        shown, f"{case_id!r} is not a case of {es.display}{hint}", field=at
                    )
