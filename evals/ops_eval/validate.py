"""The offline validator: every eval case agrees with ADK's schema, the agent's tools, the seed,
the project's policies and the strict criteria -- before any model is called.

All problems are collected in one run, one line each, naming file, case, turn, call and field.
Malformed input (unreadable JSON, a schema ADK rejects) exits 2; any other problem exits 1.
Which arguments name seed entities, which tools write and which need approval all come from the
tool declarations (`ops_copilot.registry`); the deliberate negatives come from
`evals/negatives.yaml`. Nothing here keeps a table of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ops_copilot.seed import (
    ENTITY_KINDS,
    EntityKind,
    Seed,
    YamlFileError,
    closest,
    default_seed,
    load_yaml,
    normalise,
)

from .agents import AGENTS
from .criteria import strictness_problems
from .evalset import CaseTurn, CaseView, EvalSetFile, MalformedInput, read_evalset, read_json

EVALS_DIR = Path(__file__).resolve().parents[1]
NEGATIVES_FILE = "negatives.yaml"
CONFIG_FILE = "test_config.json"
LEAK_NGRAM = 8  # words: a shared run this long between a case and the agent's knowledge leaks
INCIDENT_ID = re.compile(r"\bINC-\d{3}\b")


@dataclass(frozen=True)
class Problem:
    file: str
    message: str
    case: str | None = None
    turn: int | None = None
    call: int | None = None
    field: str | None = None
    line: int | None = None
    malformed: bool = False

    def where(self) -> str:
        bits = []
        if self.case:
            bits.append(f"case {self.case}")
        if self.turn:
            bits.append(f"turn {self.turn}")
        if self.call:
            bits.append(f"call {self.call}" + (f" {self.field}" if self.field else ""))
        elif self.field:
            bits.append(self.field)
        return ", ".join(bits)

    def render(self) -> str:
        where = self.where()
        return f"{self.file}: {where + ': ' if where else ''}{self.message}"

    def github(self) -> str:
        line = f",line={self.line}" if self.line else ""
        text = (f"{self.where()}: " if self.where() else "") + self.message
        return f"::error file={self.file}{line}::{text.replace('%', '%25').replace(chr(10), ' ')}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)
    files: int = 0
    cases: int = 0

    @property
    def malformed(self) -> bool:
        return any(p.malformed for p in self.problems)

    @property
    def exit_code(self) -> int:
        return 2 if self.malformed else (1 if self.problems else 0)


class Negatives(BaseModel):
    """evals/negatives.yaml: ids per entity kind that must not exist in the seed."""

    model_config = ConfigDict(extra="forbid")

    incident: list[str] = []
    service: list[str] = []
    runbook: list[str] = []
    skill: list[str] = []

    def of(self, kind: EntityKind) -> frozenset[str]:
        cache = self.__dict__.setdefault("_of", {})
        if kind not in cache:
            cache[kind] = frozenset(normalise(kind, v) for v in getattr(self, kind))
        return cache[kind]


# -- discovery -----------------------------------------------------------------------------------


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """Eval set files named or found under the given paths (default: evals/)."""
    found: list[Path] = []
    for raw in paths or [EVALS_DIR]:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(path.glob("*.evalset.json")))
        else:
            found.append(path)
    return list(dict.fromkeys(found))


# -- the validator -------------------------------------------------------------------------------


class Validator:
    def __init__(self, seed: Seed | None = None, negatives_file: Path | None = None) -> None:
        self.seed = seed or default_seed()
        self.negatives_file = negatives_file
        self.report = Report()
        self._replay_cache: dict[str, dict[str, Any]] = {}
        self._gold = None
        self.negatives_shown = NEGATIVES_FILE

    @property
    def gold(self):
        """One fresh workspace for gold replays and write pre-checks (reads change nothing)."""
        if self._gold is None:
            from ops_copilot.workspace import DirectContext, Workspace

            self._gold = DirectContext(workspace=Workspace.fresh(self.seed))
        return self._gold

    # problems ----------------------------------------------------------------------------------

    def add(self, file: str, message: str, **where: Any) -> None:
        self.report.problems.append(Problem(file=file, message=message, **where))

    # entry point -------------------------------------------------------------------------------

    def run(self, paths: Iterable[str | Path]) -> Report:
        paths = list(paths)
        files = discover(paths)
        if not files:
            where = ", ".join(map(str, paths)) or str(EVALS_DIR)
            self.add(where, "no *.evalset.json files here: nothing to validate", malformed=True)
            return self.report
        sets: list[EvalSetFile] = []
        for path in files:
            try:
                sets.append(read_evalset(path))
            except MalformedInput as exc:
                self.add(exc.file, exc.message, malformed=True)
        configs = self._configs(files)
        negatives = self._negatives(files)
        from .adk_schema import start

        adk = start([("evalset", es.text) for es in sets] + [("config", t) for _, t, _ in configs])
        self.report.files = len(sets)
        self.report.cases = sum(len(s.cases) for s in sets)
        if negatives is not None:
            self._check_negatives_missing(negatives)
        leak_index = _LeakIndex(self.seed)
        seen_ids: dict[str, str] = {}
        for es in sets:
            for case in es.cases:
                self._check_case(es, case, negatives or Negatives(), leak_index, seen_ids)
        self._check_holdout(sets)
        self._adk_conformance(sets, configs, adk.finish())
        return self.report

    # files beside the sets ---------------------------------------------------------------------

    def _configs(self, files: list[Path]) -> list[tuple[Path, str, Any]]:
        configs = []
        for folder in dict.fromkeys(p.parent for p in files):
            path = folder / CONFIG_FILE
            if not path.exists():
                self.add(_show(path), "missing: adk eval would fall back to its default criteria")
                continue
            try:
                text, data = read_json(path)
            except MalformedInput as exc:
                self.add(exc.file, exc.message, malformed=True)
                continue
            for fld, message in strictness_problems(data):
                self.add(_show(path), message, field=fld)
            configs.append((path, text, data))
        return configs

    def _negatives(self, files: list[Path]) -> Negatives | None:
        path = self.negatives_file or (
            files[0].parent / NEGATIVES_FILE if files else EVALS_DIR / NEGATIVES_FILE
        )
        shown = self.negatives_shown = _show(path)
        try:
            return Negatives.model_validate(load_yaml(path) or {})
        except YamlFileError as exc:
            self.add(shown, f"{exc}: the deliberate negatives must be declared", malformed=True)
        except ValidationError as exc:
            err = exc.errors()[0]
            self.add(shown, err["msg"], field=".".join(map(str, err["loc"])), malformed=True)
        return None

    def _check_negatives_missing(self, negatives: Negatives) -> None:
        for kind in ENTITY_KINDS:
            for value in sorted(negatives.of(kind)):
                if value in self.seed.ids(kind):
                    self.add(
                        self.negatives_shown,
                        f"{kind} {value!r} is declared a deliberate negative "
                        "but exists in the seed",
                        field=kind,
                    )

    # ADK conformance ---------------------------------------------------------------------------

    def _adk_conformance(self, sets: list[EvalSetFile], configs, results) -> None:
        for i, es in enumerate(sets):
            for issue in results[i]:
                case, turn, rest = _locate(es, issue.loc)
                self.add(
                    es.display,
                    f"ADK's EvalSet model rejects this: {issue.message}",
                    case=case,
                    turn=turn,
                    field=rest,
                    line=es.case_lines.get(case) if case else None,
                    malformed=True,
                )
        for j, (path, _, _) in enumerate(configs):
            for issue in results[len(sets) + j]:
                self.add(
                    _show(path),
                    issue.message,
                    field=".".join(map(str, issue.loc)),
                    malformed=True,
                )

    # per case ----------------------------------------------------------------------------------

    def _check_case(
        self,
        es: EvalSetFile,
        case: CaseView,
        negatives: Negatives,
        leaks: _LeakIndex,
        seen_ids: dict[str, str],
    ) -> None:
        line = es.case_lines.get(case.eval_id)

        def add(message: str, **where: Any) -> None:
            self.add(es.display, message, case=case.eval_id, line=line, **where)

        if case.eval_id in seen_ids:
            add(f"duplicate eval id (also in {seen_ids[case.eval_id]})", field="eval_id")
        seen_ids.setdefault(case.eval_id, es.display)
        if case.meta_error:
            add(case.meta_error, field="meta")
            return
        meta = case.meta
        assert meta is not None
        if not case.turns:
            add("has no conversation turns", field="conversation")
        agent = AGENTS[meta.agent]
        specs = agent.tool_specs()
        calls = [(t, i, c) for t in case.turns for i, c in enumerate(t.calls, start=1)]
        for turn in case.turns:
            if not turn.prompt:
                add("user text is empty", turn=turn.index, field="user_content")
            if not turn.reference:
                add("reference response is empty", turn=turn.index, field="final_response")
            leak = leaks.find(turn.prompt)
            if leak:
                add(f"prompt shares {leak} (leakage)", turn=turn.index, field="user_content")
            leak = leaks.find(turn.reference)
            if leak:
                add(
                    f"reference response shares {leak} (leakage)",
                    turn=turn.index,
                    field="final_response",
                )
            self._check_ids_in_text(add, turn, negatives)
        for turn, index, call in calls:
            spec = specs.get(call.name)
            if spec is None:
                hint = closest(call.name, specs)
                add(
                    f"{call.name!r} is not a tool of agent {meta.agent}"
                    + (f" (did you mean {hint!r}?)" if hint else ""),
                    turn=turn.index,
                    call=index,
                    field="name",
                )
                continue
            before = len(self.report.problems)
            for arg in call.args:
                if arg not in spec.params:
                    hint = closest(arg, spec.params)
                    add(
                        f"{arg!r} is not a parameter of {call.name}"
                        + (f" (did you mean {hint!r}?)" if hint else ""),
                        turn=turn.index,
                        call=index,
                        field=f"{call.name}.{arg}",
                    )
            for arg in sorted(spec.required - set(call.args)):
                add(
                    f"required argument {arg!r} is missing",
                    turn=turn.index,
                    call=index,
                    field=f"{call.name}.{arg}",
                )
            for arg, kind in spec.entities.items():
                value = call.args.get(arg)
                if value is None:
                    continue
                if not isinstance(value, str):
                    add(
                        f"{value!r} is not {_a(kind)} id",
                        turn=turn.index,
                        call=index,
                        field=f"{call.name}.{arg}",
                    )
                    continue
                key = normalise(kind, value)
                if key in negatives.of(kind) or key in self.seed.ids(kind):
                    continue
                hint = closest(key, self.seed.ids(kind))
                add(
                    f"{value!r} is not {_a(kind)} in the seed"
                    + (f" (did you mean {hint!r}?)" if hint else "")
                    + f"; declare it in {NEGATIVES_FILE} if it is a deliberate negative",
                    turn=turn.index,
                    call=index,
                    field=f"{call.name}.{arg}",
                )
            # Replay only calls that are well-formed; the problems above already say why not.
            if not spec.is_write and len(self.report.problems) == before:
                self._replay(add, turn, index, call.name, call.args, negatives)
        self._check_policy(add, case, calls, specs, negatives)
        if meta.agent == "triage_report":
            self._check_triage_reference(add, case)

    def _check_ids_in_text(self, add, turn: CaseTurn, negatives: Negatives) -> None:
        known = self.seed.ids("incident") | negatives.of("incident")
        for fld, text in (("user_content", turn.prompt), ("final_response", turn.reference)):
            for inc in sorted(set(INCIDENT_ID.findall(text)) - known):
                add(
                    f"mentions {inc}, which is neither in the seed nor a declared negative",
                    turn=turn.index,
                    field=fld,
                )

    def _replay(self, add, turn: CaseTurn, index: int, name: str, args: dict, negatives) -> None:
        """Run an expected read call against the real tool on a fresh store (gold replay).

        Reads never change state, so one fresh workspace serves every replay, and identical
        calls are answered once."""
        key = json.dumps([name, args], sort_keys=True, default=str)
        result = self._replay_cache.get(key)
        if result is None:
            from ops_copilot.registry import tool_specs

            try:
                result = tool_specs()[name].func(**args, tool_context=self.gold)
            except Exception as exc:  # a tool crash on gold input is exactly what to report
                result = {"status": "crash", "message": f"{type(exc).__name__}: {exc}"}
            self._replay_cache[key] = result
        status = result.get("status")
        where = dict(turn=turn.index, call=index, field=name)
        if status == "not_found":
            kind, value = result.get("entity"), str(result.get("id"))
            if kind in ENTITY_KINDS and normalise(kind, value) in negatives.of(kind):
                return
            add(f"gold replay: {result.get('message')}", **where)
        elif status != "ok":
            add(f"gold replay: {status}: {result.get('message')}", **where)

    def _check_policy(self, add, case: CaseView, calls, specs, negatives: Negatives) -> None:
        meta = case.meta
        assert meta is not None
        guarded = [
            (t, i, c) for t, i, c in calls if c.name in specs and specs[c.name].always_confirm
        ]
        writes = [(t, i, c) for t, i, c in calls if c.name in specs and specs[c.name].is_write]
        if meta.category != "approval":
            for t, i, c in writes:
                if specs[c.name].always_confirm:
                    add(
                        f"{c.name} needs approval; it may only be expected in an approval case",
                        turn=t.index,
                        call=i,
                        field=c.name,
                    )
                elif meta.category != "memory":
                    add(
                        f"{c.name} writes; it may only be expected in a memory or approval case",
                        turn=t.index,
                        call=i,
                        field=c.name,
                    )
        if meta.category == "approval" and not guarded:
            add("an approval case must expect a call that needs approval", field="meta.category")
        untrusted_seen = None
        for t, i, c in calls:
            spec = specs.get(c.name)
            if spec is None:
                continue
            if spec.confirm == "after_untrusted" and untrusted_seen and meta.category != "approval":
                add(
                    f"{c.name} after {untrusted_seen} would wait for a human approval; only an "
                    "approval case can expect it there",
                    turn=t.index, call=i, field=c.name,
                )  # fmt: skip
            if spec.untrusted and untrusted_seen is None:
                untrusted_seen = c.name
        for t, i, c in guarded:
            self._precheck_write(add, t, i, c, negatives)
        if meta.approval is not None and meta.category != "approval":
            add("an approval decision belongs only on an approval case", field="meta.approval")
        if meta.category == "relevance" and calls:
            add("a relevance case expects no tool call at all", field="conversation")
        if meta.category == "negative":
            named = {
                normalise(kind, c.args[arg])
                for _, _, c in calls
                if c.name in specs
                for arg, kind in specs[c.name].entities.items()
                if isinstance(c.args.get(arg), str)
                and normalise(kind, c.args[arg]) in negatives.of(kind)
            }
            if not named:
                add("a negative case must name a declared negative", field="meta.category")

    def _precheck_write(self, add, turn: CaseTurn, index: int, call, negatives) -> None:
        """An expected write must be one a human could approve on a fresh store: not refused
        before anyone is asked (already resolved, unknown target)."""
        from ops_copilot.tools import precheck_write

        result = precheck_write(call.name, call.args, self.gold.workspace)
        if result is None or result.get("reason") == "writes_disabled":  # a setting, not the case
            return
        kind, value = result.get("entity"), str(result.get("id"))
        negative = kind in ENTITY_KINDS and normalise(kind, value) in negatives.of(kind)
        if result.get("status") == "not_found" and negative:
            return
        add(
            f"gold replay: this write would be refused before approval: {result.get('message')}",
            turn=turn.index, call=index, field=call.name,
        )  # fmt: skip

    def _check_triage_reference(self, add, case: CaseView) -> None:
        from ops_copilot.report import TriageReport

        for turn in case.turns:
            try:
                report = TriageReport.model_validate_json(turn.reference)
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = ".".join(map(str, err["loc"]))
                add(
                    f"reference is not a TriageReport ({loc + ': ' if loc else ''}{err['msg']})",
                    turn=turn.index,
                    field="final_response",
                )
                continue
            incident = self.seed.incidents.get(report.incident_id)
            if incident is None:
                add(
                    f"TriageReport names {report.incident_id}, which is not in the seed",
                    turn=turn.index,
                    field="final_response.incident_id",
                )
                continue
            for fld in ("service", "severity", "runbook"):
                if getattr(report, fld) != getattr(incident, fld):
                    add(
                        f"TriageReport {fld} {getattr(report, fld)!r} disagrees with the seed's "
                        f"{getattr(incident, fld)!r} for {incident.id}",
                        turn=turn.index,
                        field=f"final_response.{fld}",
                    )

    def _check_holdout(self, sets: list[EvalSetFile]) -> None:
        holdout = [s for s in sets if "holdout" in s.path.name]
        main = [s for s in sets if "holdout" not in s.path.name]
        prompts: dict[str, str] = {}
        for es in main:
            for case in es.cases:
                for turn in case.turns:
                    prompts.setdefault(_canon(turn.prompt), case.eval_id)
        for es in holdout:
            for case in es.cases:
                for turn in case.turns:
                    other = prompts.get(_canon(turn.prompt))
                    if other and turn.prompt:
                        self.add(
                            es.display,
                            f"holdout prompt repeats case {other} of a tuning set",
                            case=case.eval_id,
                            turn=turn.index,
                            field="user_content",
                            line=es.case_lines.get(case.eval_id),
                        )


# -- helpers -------------------------------------------------------------------------------------


def _show(path: Path) -> str:
    from .evalset import display_path

    return display_path(path)


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _canon(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def _locate(es: EvalSetFile, loc: tuple[Any, ...]) -> tuple[str | None, int | None, str | None]:
    """ADK's error location as (case id, 1-based turn, remaining field path)."""
    loc = tuple(loc)
    case = turn = None
    if len(loc) >= 2 and loc[0] == "eval_cases" and isinstance(loc[1], int):
        raw = es.data["eval_cases"][loc[1]] if loc[1] < len(es.data["eval_cases"]) else {}
        case = str(raw.get("eval_id") or raw.get("evalId") or f"#{loc[1] + 1}")
        loc = loc[2:]
        if len(loc) >= 2 and loc[0] == "conversation" and isinstance(loc[1], int):
            turn = loc[1] + 1
            loc = loc[2:]
    return case, turn, ".".join(map(str, loc)) or None


class _LeakIndex:
    """Word n-grams of everything the agent is given (instructions, skills, runbooks)."""

    def __init__(self, seed: Seed) -> None:
        sources: dict[str, str] = {}
        for name, entry in AGENTS.items():
            sources[f"the {name} instruction"] = entry.instruction
        for name, folder in seed.skill_dirs.items():
            sources[f"skill {name}"] = (folder / "SKILL.md").read_text(encoding="utf-8")
        for slug, rb in seed.runbooks.items():
            sources[f"runbook {slug}"] = rb.body
        self.index: dict[tuple[str, ...], str] = {}
        for source, text in sources.items():
            for gram in _ngrams(text):
                self.index.setdefault(gram, source)

    def find(self, text: str) -> str | None:
        for gram in _ngrams(text):
            source = self.index.get(gram)
            if source:
                return f"the {LEAK_NGRAM}-word run {' '.join(gram)!r} with {source}"
        return None


def _ngrams(text: str) -> Iterable[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return (tuple(words[i : i + LEAK_NGRAM]) for i in range(len(words) - LEAK_NGRAM + 1))


def validate(
    paths: Iterable[str | Path] = (),
    *,
    seed: Seed | None = None,
    negatives_file: Path | None = None,
) -> Report:
    return Validator(seed=seed, negatives_file=negatives_file).run(list(paths))


def render(report: Report, fmt: str = "text") -> list[str]:
    lines = [p.github() if fmt == "github" else p.render() for p in report.problems]
    return lines
