"""Which run the candidate is compared with. Without --baseline or --pinned it is the series'
latest pin the candidate can be compared with; else the latest comparable run a human would have
chosen: it passes over, and says why, a run measured differently, one the gate cannot judge, one
never gated under the current policy, and one whose latest verdict under the current policy was
inconclusive or failed without an override. Verdicts under another policy (a one-off stricter
flag) say nothing either way; runs of another eval set, model or case selection are counted, not
listed. Explicit and pinned baselines are the user's choice, but never one the gate cannot
judge."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_gate_ledger import CASES, POLICY, REASON, at, make_run, refused, verdict

from ops_eval.base.exits import EXIT_BAD_INPUT
from ops_eval.deciding.gate.baseline import AUTO, choose_baseline
from ops_eval.deciding.gate.overrides import record_override
from ops_eval.deciding.gate.pins import pin
from ops_eval.deciding.ledger.chain import Ledger, default_ledger
from ops_eval.deciding.ledger.entries import PinEntry
from ops_eval.results.records import RunRecord, write_record
from ops_eval.results.runs import file_sha256
from ops_eval.results.synthetic import synthetic_record
from ops_eval.scorers import Score
from support import refigured, unhashed

ALL_ERRORED = [("c1", "lookup", [None, None]), ("c2", "lookup", [None, None])]


@pytest.fixture
def runs(tmp_path: Path, ops_env) -> Path:
    ops_env.setenv("OPS_RUNS_DIR", str(tmp_path))
    return tmp_path


def auto(cand: RunRecord, cand_path: Path, runs: Path, ledger: Ledger | None = None, **kwargs):
    """The automatic choice: (the chosen run's id or None, the skipped runs as a dict)."""
    kwargs.setdefault("config", POLICY)
    chosen, skipped = choose_baseline(
        cand,
        cand_path,
        explicit=None,
        pinned=None,
        ledger=ledger or default_ledger(),
        runs_dir=runs,
        **kwargs,
    )
    if chosen is not None:
        assert chosen.how == AUTO and chosen.skipped == skipped
    return (chosen.record.run_id if chosen else None), dict(skipped)


def without_scorer(record: RunRecord, name: str) -> RunRecord:
    """The record as an older scorer set wrote it: no trial carries `name`."""
    trials = [
        t.model_copy(update={"scores": {k: v for k, v in t.scores.items() if k != name}})
        for t in record.trials
    ]
    return refigured(record.model_copy(update={"trials": trials}))


def all_not_applicable(record: RunRecord) -> RunRecord:
    """Every scorer n/a in every trial: no trial has a verdict."""
    trials = [
        t.model_copy(update={"scores": {k: Score(outcome="n/a") for k in t.scores}})
        for t in record.trials
    ]
    return refigured(record.model_copy(update={"trials": trials}))


def gated(ledger: Ledger, run_id: str, config=POLICY, **kwargs) -> None:
    """Record a passing verdict of `run_id` under `config` (the shipped POLICY unless told)."""
    kwargs.setdefault("kind", "pass")
    kwargs.setdefault("failures", ())
    ledger.append(verdict(run_id, policy_sha256=config.digest(), **kwargs))


def test_the_latest_comparable_run_is_chosen_and_every_skip_said(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "later0000001", at(11))
    write_record(
        synthetic_record(ALL_ERRORED, run_id="errored00001", started_at=at(9)),
        runs / "errored.json",
    )
    make_run(runs, "model0000001", at(8), model="other/model")
    make_run(
        runs, "cases0000001", at(7), outcomes=[*CASES, ("c3", "lookup", [True, True])],
        eval_set_cases=4,  # a selection of a set's cases, not the whole set
    )  # fmt: skip
    make_run(runs, "noisy0000001", at(6))
    make_run(runs, "failed000001", at(5))
    chosen_path, _ = make_run(runs, "chosen000001", at(4))
    make_run(runs, "older0000001", at(3))
    (runs / "notes.json").write_text("not a record")
    ledger = default_ledger()
    gated(ledger, "noisy0000001", kind="inconclusive_noise")
    gated(ledger, "failed000001", kind="regressed", failures=("regressed",))
    gated(ledger, "chosen000001")
    gated(ledger, "older0000001")

    found, skipped = choose_baseline(
        cand, cand_path, explicit=None, pinned=None, ledger=ledger, runs_dir=runs, config=POLICY
    )
    assert found is not None
    assert (found.path, found.record.run_id, found.how) == (chosen_path, "chosen000001", AUTO)
    assert found.skipped == skipped
    reasons = dict(skipped)
    assert list(reasons) == [
        "later0000001",
        "errored00001",
        "noisy0000001",
        "failed000001",
        "2 run(s)",
        "1 file(s)",
    ]
    assert reasons["later0000001"].startswith(f"started {at(11)}, not before the candidate")
    assert reasons["errored00001"] == (
        "its run errored00001: every trial errored (4); there is no verdict to gate on"
    )
    # another model and another case selection: counted, not listed one by one
    assert reasons["2 run(s)"] == "of another eval set, model or case selection"
    assert reasons["noisy0000001"].startswith(
        "its own gate was inconclusive_noise (against base00000000, at "
    )
    assert reasons["failed000001"].startswith(
        "its own gate failed (regressed; against base00000000, at "
    )
    assert reasons["failed000001"].endswith("with no override of that decision")
    assert reasons["1 file(s)"].startswith("not run records (e.g. notes.json: not JSON")

    # an override of the failed run's verdict makes it a baseline again
    record_override(ledger, "failed000001", REASON, "Ada")
    assert auto(cand, cand_path, runs, ledger)[0] == "failed000001"


def test_the_latest_verdict_under_this_policy_decides(runs):
    """A run's standing is its latest verdict under the policy in force, not any verdict it
    ever had. This replaces 'an earlier failed verdict counts though a later one passed': that
    rule let one stale verdict -- say a failure under a one-off stricter flag, or one since
    re-gated -- disqualify a run for good, so the automatic baseline drifted back to ever older
    runs. A failure followed by a pass under the same policy is now eligible; a pass followed
    by a failure is not."""
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "regated00001", at(5))
    make_run(runs, "steady000001", at(4))
    ledger = default_ledger()
    gated(ledger, "steady000001")
    gated(
        ledger,
        "regated00001",
        baseline="strong000001",
        kind="regressed",
        failures=("the set regressed",),
    )
    gated(ledger, "regated00001", baseline="weak00000001")  # gated again, it passed
    assert auto(cand, cand_path, runs, ledger) == ("regated00001", {})

    # the other way round: a pass, then a failure under the same policy -- the failure stands
    reverse = Ledger(runs / "other" / "gate-ledger.jsonl")
    gated(reverse, "steady000001")
    gated(reverse, "regated00001", baseline="weak00000001")
    gated(
        reverse,
        "regated00001",
        baseline="strong000001",
        kind="regressed",
        failures=("the set regressed",),
    )
    chosen, skipped = auto(cand, cand_path, runs, reverse)
    assert chosen == "steady000001"
    assert skipped["regated00001"].startswith(
        "its own gate failed (the set regressed; against strong000001, at "
    )


def test_a_verdict_under_another_policy_neither_disqualifies_nor_qualifies(runs):
    """The reviewer's case: `ops-eval gate B --suite-threshold 0.99` failing says nothing about
    B under the shipped policy, so B stays C's baseline; nor does a pass under another policy
    make a run never gated under this one eligible."""
    cand_path, cand = make_run(runs, "cand00000001", at(10))  # C
    make_run(runs, "bbbbbbbb0001", at(5))  # B
    make_run(runs, "steady000001", at(4))
    ledger = default_ledger()
    strict = POLICY.tightened(suite_threshold=0.99)
    assert strict.digest() != POLICY.digest()
    gated(ledger, "steady000001")
    gated(ledger, "bbbbbbbb0001")  # passed under the shipped policy
    gated(
        ledger,
        "bbbbbbbb0001",
        config=strict,
        kind="pass",
        failures=("pass rate 3/4 (75%) is below the suite threshold 99%",),
    )
    assert auto(cand, cand_path, runs, ledger) == ("bbbbbbbb0001", {})

    # under the stricter policy itself, B was never gated as it passed: neither qualifies
    chosen, skipped = auto(cand, cand_path, runs, ledger, config=strict)
    assert chosen is None
    assert skipped["steady000001"].startswith("never gated under this policy")

    # a pass under another policy does not qualify a run never gated under this one
    other = Ledger(runs / "other" / "gate-ledger.jsonl")
    gated(other, "steady000001")
    gated(other, "bbbbbbbb0001", config=strict)
    chosen, skipped = auto(cand, cand_path, runs, other)
    assert chosen == "steady000001"
    assert skipped["bbbbbbbb0001"] == (
        "never gated under this policy (`ops-eval gate bbbbbbbb0001` first; a run nobody "
        "judged is no baseline)"
    )


def test_an_override_of_another_decision_does_not_clear_a_failed_verdict(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "failed000001", at(5))
    make_run(runs, "steady000001", at(4))
    ledger = default_ledger()
    gated(ledger, "steady000001")
    # two failed decisions under this policy, against different baselines
    gated(
        ledger, "failed000001", baseline="base00000001", kind="regressed", failures=("regressed",)
    )
    gated(
        ledger, "failed000001", baseline="base00000002", kind="regressed", failures=("regressed",)
    )
    record_override(ledger, "failed000001", REASON, "Ada")  # accepts the latest only
    assert auto(cand, cand_path, runs, ledger)[0] == "failed000001"
    # gated again, it fails once more: the override of the earlier decision does not cover it
    gated(
        ledger, "failed000001", baseline="base00000003", kind="regressed", failures=("regressed",)
    )
    chosen, skipped = auto(cand, cand_path, runs, ledger)
    assert chosen == "steady000001"
    assert skipped["failed000001"].startswith("its own gate failed (regressed; against")


def test_a_never_gated_run_is_passed_over(runs):
    """A run nobody gated under this policy is no baseline, however well it scored; gated and
    passing, it is one -- and its standing depends on the policy in force."""
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "weak00000001", at(5), outcomes=[("c1", "lookup", [False, False]), CASES[1]])
    make_run(runs, "steady000001", at(4))
    ledger = default_ledger()
    gated(ledger, "steady000001")
    chosen, skipped = auto(cand, cand_path, runs, ledger)
    assert chosen == "steady000001"
    assert skipped == {
        "weak00000001": (
            "never gated under this policy (`ops-eval gate weak00000001` first; a run nobody "
            "judged is no baseline)"
        )
    }
    lenient = POLICY.model_copy(update={"suite_threshold": 0.25})
    gated(ledger, "weak00000001", config=lenient)
    assert auto(cand, cand_path, runs, ledger, config=lenient) == (
        "weak00000001",
        {},
    )
    # under the shipped policy weak00000001 is still never gated; steady000001 is chosen
    assert auto(cand, cand_path, runs, ledger)[0] == "steady000001"

    required = POLICY.model_copy(update={"required_cases": {"ops.evalset.json": ["c2"]}})
    chosen, skipped = auto(cand, cand_path, runs, ledger, config=required)
    assert chosen is None  # neither was gated under this policy
    assert set(skipped) == {"weak00000001", "steady000001"}
    assert all(why.startswith("never gated under this policy") for why in skipped.values())


def _changed_criteria(record: RunRecord) -> RunRecord:
    return refigured(
        record.model_copy(
            update={"criteria": record.criteria.model_copy(update={"threshold": 0.5})}
        )
    )


@pytest.mark.parametrize(
    ("kind", "change"),
    [
        # A record without case hashes (version 5) is compared as a whole, as before.
        ("eval_set", lambda r: unhashed(r.model_copy(update={"eval_set_sha256": "f" * 64}))),
        ("seed", lambda r: r.model_copy(update={"seed_sha256": "6" * 64})),
        ("scorers", lambda r: r.model_copy(update={"scorers_sha256": "d" * 64})),
        ("criteria", _changed_criteria),
    ],
    ids=["eval_set", "seed", "scorers", "criteria"],
)
def test_a_run_measured_differently_is_passed_over_unless_allowed(runs, kind, change):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    _, record = make_run(runs, "changed00001", at(5))
    write_record(change(record), runs / "run-changed00001.json")
    make_run(runs, "steady000001", at(4))
    ledger = default_ledger()
    gated(ledger, "changed00001")
    gated(ledger, "steady000001")
    chosen, skipped = auto(cand, cand_path, runs, ledger)
    assert chosen == "steady000001"
    assert skipped == {
        "changed00001": (
            f"measured differently: {kind} changed since (--allow-change {kind} compares anyway)"
        )
    }
    assert auto(cand, cand_path, runs, ledger, allowed=[kind]) == ("changed00001", {})
    other = "seed" if kind != "seed" else "eval_set"
    assert auto(cand, cand_path, runs, ledger, allowed=[other])[0] == "steady000001"


def test_a_change_of_what_is_tested_is_no_reason_to_pass_a_run_over(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "prompt000001", at(5), instruction="j" * 64, tool_schema_sha256="8" * 64)
    ledger = default_ledger()
    gated(ledger, "prompt000001")
    assert auto(cand, cand_path, runs, ledger) == ("prompt000001", {})


@pytest.mark.parametrize(
    ("spoil", "why"),
    [
        (
            lambda r: without_scorer(r, "tool_policy"),
            "its run spoilt000001: no trial carries the gating scorer(s) tool_policy "
            "(a record from an older scorer set)",
        ),
        (
            all_not_applicable,
            "its run spoilt000001: no gating scorer applied to any trial (all n/a or "
            "skipped); there is no verdict to gate on",
        ),
    ],
    ids=["scorer-missing", "all-n/a"],
)
def test_a_run_the_gate_cannot_judge_is_passed_over(runs, spoil, why):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    _, record = make_run(runs, "spoilt000001", at(5))
    write_record(spoil(record), runs / "run-spoilt000001.json")
    make_run(runs, "steady000001", at(4))
    ledger = default_ledger()
    gated(ledger, "spoilt000001")  # passed once, under an older scorer set
    gated(ledger, "steady000001")
    assert auto(cand, cand_path, runs, ledger) == ("steady000001", {"spoilt000001": why})


def test_another_eval_set_is_not_comparable_and_none_may_be_found(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "elsewhere001", at(9), eval_set="evals/other.evalset.json")
    make_run(runs, "elsewhere002", at(8), eval_set="evals/other.evalset.json")
    ledger = default_ledger()
    gated(ledger, "elsewhere001")  # gated and passing, yet of another eval set
    chosen, skipped = choose_baseline(
        cand,
        cand_path,
        explicit=None,
        pinned=None,
        ledger=ledger,
        runs_dir=runs,
        config=POLICY,
    )
    assert chosen is None
    assert skipped == [
        ("2 run(s)", "of another eval set, model or case selection")
    ]  # said even when nothing is chosen


def test_a_copy_of_the_candidate_is_not_its_baseline(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    write_record(cand, runs / "copy.json")
    assert auto(cand, cand_path, runs) == (
        None,
        {"cand00000001": "same run id as the candidate (copy.json is a copy of it)"},
    )


# --- the series' pin as the default anchor ------------------------------------------------------


def test_a_pin_of_the_series_is_the_default_anchor_over_a_newer_eligible_run(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "newer0000001", at(6))
    make_run(runs, "oldpin000001", at(2))
    make_run(runs, "anchor000001", at(3))
    ledger = default_ledger()
    gated(ledger, "newer0000001")  # eligible, and newer than either pinned run
    pin(ledger, "anchor000001", "release", None)
    entry = pin(ledger, "oldpin000001", "main", "Ada")  # pinned last: the series' latest pin

    found, skipped = choose_baseline(
        cand, cand_path, explicit=None, pinned=None, ledger=ledger, runs_dir=runs, config=POLICY
    )
    assert found is not None and skipped == [] and found.skipped == []
    assert found.record.run_id == "oldpin000001"
    assert found.path == runs / "baselines" / "oldpin000001.json"
    assert found.how == f"pinned main (pinned by Ada at {entry.at}), the series' latest pin"

    # a pin whose copy was swapped, and one measured differently: listed, the next pin wins
    _, record = make_run(runs, "changed00001", at(4))
    changed = record.model_copy(update={"seed_sha256": "6" * 64})
    write_record(changed, runs / "run-changed00001.json")
    pin(ledger, "changed00001", "seedless", None)
    pin(ledger, "newer0000001", "broken", None)
    (runs / "baselines" / "newer0000001.json").write_text("swapped")
    found, skipped = choose_baseline(
        cand, cand_path, explicit=None, pinned=None, ledger=ledger, runs_dir=runs, config=POLICY
    )
    assert found is not None and found.record.run_id == "oldpin000001"
    assert found.skipped == skipped
    reasons = dict(skipped)
    assert list(reasons) == ["pin broken", "pin seedless (run changed00001)"]
    assert "was changed or removed" in reasons["pin broken"]
    assert reasons["pin seedless (run changed00001)"] == (
        "measured differently: seed changed since (--allow-change seed compares anyway)"
    )
    found, _ = choose_baseline(
        cand,
        cand_path,
        explicit=None,
        pinned=None,
        ledger=ledger,
        runs_dir=runs,
        config=POLICY,
        allowed=["seed"],
    )
    assert found is not None and found.record.run_id == "changed00001"


def test_a_pin_of_another_series_is_ignored(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    make_run(runs, "newer0000001", at(6))
    make_run(runs, "elsewhere001", at(5), eval_set="evals/other.evalset.json")
    make_run(runs, "model0000001", at(4), model="other/model")
    make_run(
        runs, "cases0000001", at(3), outcomes=[*CASES, ("c3", "lookup", [True, True])],
        eval_set_cases=4,  # a selection of a set's cases, not the whole set
    )  # fmt: skip
    ledger = default_ledger()
    gated(ledger, "newer0000001")
    pin(ledger, "elsewhere001", "other-set", None)
    pin(ledger, "model0000001", "other-model", None)
    pin(ledger, "cases0000001", "other-cases", None)
    pin(ledger, "cand00000001", "itself", None)  # the candidate's own pin is no anchor either
    chosen, skipped = auto(cand, cand_path, runs, ledger)  # AUTO: no pin was taken
    assert (chosen, skipped) == ("newer0000001", {})  # no pin listed as passed over


# --- explicit and pinned -----------------------------------------------------------------------


def test_explicit_and_pinned_baselines(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    base_path, _ = make_run(runs, "base00000001", at(5))
    ledger = default_ledger()
    kwargs = {"ledger": ledger, "runs_dir": runs, "config": POLICY}

    found, skipped = choose_baseline(cand, cand_path, explicit="base00", pinned=None, **kwargs)
    assert found is not None and (found.path, found.how) == (base_path, "explicit")
    assert skipped == []

    entry = pin(ledger, "base00000001", "main", "Ada")
    found, skipped = choose_baseline(cand, cand_path, explicit=None, pinned="main", **kwargs)
    assert found is not None and skipped == []
    assert found.path == runs / "baselines" / "base00000001.json"
    assert found.how == f"pinned main (pinned by Ada at {entry.at})"

    message = refused(choose_baseline, cand, cand_path, explicit="x", pinned="main", **kwargs)
    assert message == "--baseline and --pinned: give one of them, not both"
    message = refused(
        choose_baseline, cand, cand_path, explicit="cand00000001", pinned=None, **kwargs
    )
    assert "the candidate itself" in message
    (runs / "broken.json").write_text("{}")
    message = refused(
        choose_baseline, cand, cand_path, explicit=str(runs / "broken.json"), pinned=None, **kwargs
    )
    assert message.startswith(f"baseline {runs / 'broken.json'}: not a run record")


def test_an_explicit_baseline_the_gate_cannot_judge_is_refused(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    errored = synthetic_record(ALL_ERRORED, run_id="errored00001", started_at=at(5))
    write_record(errored, runs / "errored.json")
    _, record = make_run(runs, "spoilt000001", at(4))
    write_record(without_scorer(record, "tool_policy"), runs / "run-spoilt000001.json")
    kwargs = {"pinned": None, "ledger": default_ledger(), "runs_dir": runs, "config": POLICY}

    message = refused(  # every trial errored: exit 2 here, not exit 3 -- the choice was the user's
        choose_baseline, cand, cand_path, explicit="errored00001", code=EXIT_BAD_INPUT, **kwargs
    )
    assert message == (
        "baseline run errored00001: every trial errored (4); there is no verdict to gate on; "
        "it cannot be a baseline"
    )
    message = refused(choose_baseline, cand, cand_path, explicit="spoilt000001", **kwargs)
    assert message == (
        "baseline run spoilt000001: no trial carries the gating scorer(s) tool_policy (a record "
        "from an older scorer set); it cannot be a baseline"
    )


def test_a_pinned_baseline_the_gate_cannot_judge_is_refused(runs):
    cand_path, cand = make_run(runs, "cand00000001", at(10))
    _, record = make_run(runs, "spoilt000001", at(5))
    write_record(without_scorer(record, "tool_policy"), runs / "run-spoilt000001.json")
    ledger = default_ledger()
    pin(ledger, "spoilt000001", "main", None)  # it has verdicts by an older scorer set

    # a pin of an all-error run (`pin` refuses one; a ledger written by hand holds one)
    copy = runs / "baselines" / "errored00001.json"
    write_record(synthetic_record(ALL_ERRORED, run_id="errored00001", started_at=at(4)), copy)
    ledger.append(
        PinEntry(
            name="broken",
            run="errored00001",
            sha256=file_sha256(copy),
            path="baselines/errored00001.json",
        )
    )
    kwargs = {"explicit": None, "ledger": ledger, "runs_dir": runs, "config": POLICY}
    message = refused(choose_baseline, cand, cand_path, pinned="main", **kwargs)
    assert message == (
        "pinned baseline main run spoilt000001: no trial carries the gating scorer(s) "
        "tool_policy (a record from an older scorer set); it cannot be a baseline"
    )
    message = refused(choose_baseline, cand, cand_path, pinned="broken", **kwargs)
    assert message == (
        "pinned baseline broken run errored00001: every trial errored (4); there is no "
        "verdict to gate on; it cannot be a baseline"
    )
