"""The gate's policy, in one file beside the eval sets (`evals/gate.yaml`): the pass rate a run
must reach, the drop that counts as a regression, the cases that must pass in every trial, which
scorers decide a trial, and whether a category's own regression fails the gate.

`ops-eval validate` checks it with the eval sets (`validation/gate_rules.py`); `ops-eval gate`
reads it here. A command-line flag may make it stricter -- a higher suite threshold, a smaller
allowed drop -- never more lenient.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, ValidationError, field_validator

from ..base.inputs import bad_input
from ..base.scrub import LABEL_CHARS
from ..base.strict import Strict

GATE_FILE = "gate.yaml"

Fraction = Annotated[float, Field(ge=0, le=1)]


class GateConfigError(ValueError):
    """The gate file cannot be read or does not validate; the message names the file and field."""


MUTANTS: tuple[str, ...] = (
    # the ops copilot's tools
    "status-stale",
    "incident-off-by-one",
    "not-found-is-empty-success",
    "incident-status-filter-dropped",
    "runbook-search-empty",
    "log-search-ignores-query",
    "recall-forgets-notes",
    "note-saved-without-text",
    "write-reports-success-unapplied",
    # its guards and write policy
    "kill-switch-ignored",
    "link-guard-off",
    "answer-guard-off",
    "spotlighting-off",
    "write-skips-approval",
    "any-rationale-accepted",
    "notes-never-need-approval",
    "approval-reused",
)
"""The names of the deterministic mutants, in declaration order: what `mutation` may name.
Declared here, below the mutation testing that defines them, so that validation checks a gate
file without importing up a layer; the registry of mutants (`mutation.mutants.registered`)
refuses to load unless it declares exactly these, so the two cannot drift."""


class MutationFloor(Strict):
    """What `ops-eval mutate` holds the eval set to (`mutation/offline.py`); each mutant it
    names is one of `MUTANTS`."""

    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    min_score: Fraction = 0.0
    """The least share of non-equivalent mutants the set must kill."""
    must_kill: list[str] = []
    """Mutants the set kills today: one that survives a change to the set fails it, by name."""
    equivalent: dict[str, str] = {}
    """Mutants a person marked unable to change any outcome, with the reason: left out."""


class GateConfig(Strict):
    model_config = ConfigDict(frozen=True, allow_inf_nan=False)

    suite_threshold: Fraction
    """The candidate's pass rate (trials with a verdict) must reach this."""
    regression_threshold: Fraction
    """A drop in pass rate larger than this is a regression when the 95% interval of the
    difference excludes zero, and inconclusive noise when it does not."""
    categories: Literal["report", "gate"] = "report"
    """`gate`: a category's own regressed verdict fails the gate too (more comparisons, more
    false alarms; `mise run bench` measures both); `report`: it is shown, the set decides."""
    gating_scorers: list[str] = Field(min_length=1)
    """The scorers whose fail fails a trial."""
    not_gating: list[str] = []
    """Scorers that can fail a trial but deliberately do not gate. Every registered scorer that
    can fail is in one list or the other, so a new scorer never silently stays out."""
    required_cases: dict[str, list[str]] = {}
    """Eval set file name -> cases that must pass in every trial (an error trial counts against)."""
    mutation: MutationFloor = MutationFloor()
    """The mutation score's floor and the mutants the set must keep killing (`ops-eval mutate`)."""
    minimal_data: list[str] = []
    """Eval set file names whose runs keep minimal data only (`--data minimal`, whatever the
    command line says): keyed hashes and scrubbed labels, never text."""
    label_chars: int = Field(default=LABEL_CHARS, ge=16, le=1000)
    """The longest label a minimal-data run keeps of a free text (a scorer's detail, an error)."""
    judge_budget_tokens: int | None = Field(default=None, ge=1)
    """The most tokens one command's judge calls may cost (read by `judging.run.gate_budget`). A
    policy that does not say leaves no budget: no judge call is made."""

    @field_validator("gating_scorers", "not_gating")
    @classmethod
    def _distinct(cls, names: list[str]) -> list[str]:
        if len(set(names)) != len(names):
            raise ValueError("names a scorer twice")
        return names

    def digest(self) -> str:
        """The sha256 of this policy as applied (flags included): what a verdict was decided by."""
        import hashlib

        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()

    def required_for(self, eval_set: str) -> list[str]:
        """The required cases of the eval set at `eval_set` (a path as a record keeps it)."""
        return self.required_cases.get(Path(eval_set).name, [])

    def tightened(
        self, suite_threshold: float | None = None, regression_threshold: float | None = None
    ) -> GateConfig:
        """This policy made stricter by command-line flags; OpsEvalError (exit 2) for a flag
        that would make it more lenient."""
        update: dict[str, float] = {}
        if suite_threshold is not None:
            if not 0 <= suite_threshold <= 1 or suite_threshold < self.suite_threshold:
                raise bad_input(
                    f"--suite-threshold {suite_threshold:g}: may only raise the configured "
                    f"{self.suite_threshold:g}, up to 1"
                )
            update["suite_threshold"] = suite_threshold
        if regression_threshold is not None:
            if not 0 <= regression_threshold <= self.regression_threshold:
                raise bad_input(
                    f"--regression-threshold {regression_threshold:g}: may only lower the allowed "
                    f"drop from the configured {self.regression_threshold:g} (stricter), down to 0"
                )
            update["regression_threshold"] = regression_threshold
        return self.model_copy(update=update)


MAX_REGRESSION_THRESHOLD = 0.5
"""The allowed drop must stay below this: a gate that ignores a 50-point drop is no gate."""
GATE_METRIC = "trajectory"
"""The suite's criterion (`test_config.json`): it always gates."""


def policy_problems(config: GateConfig) -> list[tuple[str, str]]:
    """(field, why) for each way a valid-looking policy fails to gate: a scorer that is not
    registered, or cannot fail (a `report` scorer); a scorer that can fail placed in neither
    list, or in both; the suite's own metric not gating; a zero suite threshold (a run that
    passes nothing reaches it); an allowed drop of half the pass rate or more. `ops-eval
    validate` reports these; `ops-eval gate` refuses to judge by such a policy."""
    from ..agents.ops_world import closest
    from ..scorers import registered  # the scorer modules: cheap, and needed only here

    known = registered()
    found: list[tuple[str, str]] = []
    for key in ("gating_scorers", "not_gating"):
        for index, name in enumerate(getattr(config, key)):
            where = f"{key}[{index}]"
            entry = known.get(name)
            if entry is None:
                near = closest(name, known)
                hint = f" (did you mean {near!r}?)" if near else ""
                found.append((where, f"{name!r} is not a registered scorer{hint}"))
            elif entry.gate == "report":
                found.append(
                    (where, f"{name!r} is a report scorer: it never fails a trial, so it has no "
                     "place in the gate's lists")
                )  # fmt: skip
    for name in sorted(set(config.gating_scorers) & set(config.not_gating)):
        found.append(("not_gating", f"{name!r} is in gating_scorers too; put it in one list"))
    placed = set(config.gating_scorers) | set(config.not_gating)
    for name, entry in known.items():
        if entry.gate != "report" and name not in placed:
            found.append(
                ("gating_scorers", f"{name!r} can fail a trial but is in neither gating_scorers "
                 "nor not_gating: place it, so a new scorer never silently stays out")
            )  # fmt: skip
    if GATE_METRIC in known and GATE_METRIC not in config.gating_scorers:
        found.append(
            ("gating_scorers", f"{GATE_METRIC!r} must gate: it is the suite's own criterion")
        )
    if config.suite_threshold <= 0:
        found.append(
            ("suite_threshold", f"{config.suite_threshold:g}: a run that passes no trial reaches "
             "it, so it gates nothing; it must be above 0")
        )  # fmt: skip
    if config.regression_threshold >= MAX_REGRESSION_THRESHOLD:
        found.append(
            ("regression_threshold", f"{config.regression_threshold:g}: a gate that ignores a "
             f"drop of {MAX_REGRESSION_THRESHOLD * 100:g} points in pass rate is no gate; it "
             f"must be below {MAX_REGRESSION_THRESHOLD:g}")
        )  # fmt: skip
    return found


def gate_file(evals_dir: Path | None = None) -> Path:
    from ..base.settings import current

    return (evals_dir or current().evals_dir) / GATE_FILE


def read_gate_config(path: Path) -> tuple[GateConfig, str]:
    """(the policy, the sha256 of the file); GateConfigError naming the file and the field."""
    from opskit.textfiles import TextFileError, load_yaml, read_bytes

    try:
        digest = hashlib.sha256(read_bytes(path)).hexdigest()
        data = load_yaml(path)
    except TextFileError as exc:
        raise GateConfigError(f"{path}: {exc}") from None
    if not isinstance(data, dict):
        raise GateConfigError(f"{path}: not a mapping of gate settings")
    try:
        return GateConfig.model_validate(data, strict=True), digest
    except ValidationError as exc:
        # A misspelt key is both an unknown key and a missing one: say both, the unknown first.
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        said = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or '(top level)'}: {e['msg']}" for e in errors[:3]
        )
        more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
        raise GateConfigError(f"{path}: {said}{more}") from None


def gate_data(eval_set: Path, path: Path | None = None) -> tuple[bool, int]:
    """(whether the gate's policy keeps minimal data for `eval_set`, its label length). A policy
    file that exists and cannot be read is refused (exit 2): it may be what says a set is
    sensitive. No file: the set is not declared, labels have the default length."""
    path = path or gate_file()
    if not path.exists():
        return False, LABEL_CHARS
    try:
        config, _ = read_gate_config(path)
    except GateConfigError as exc:
        raise bad_input(f"{exc} (it says which eval sets keep minimal data)") from None
    return eval_set.name in config.minimal_data, config.label_chars
