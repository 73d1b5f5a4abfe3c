"""The calibration report log: append-only and hash-chained (an edited line is refused, naming
it), a report that says more than its items show is refused, and `standing` -- what the gate
asks -- decided by the latest report for a judge's pin and prompt version made on the project's
calibration set as it is now, judged against the project's target."""

from __future__ import annotations

import json

import pytest
from calibration_helpers import SHIPPED_SET

from ops_eval.base.exits import OpsEvalError
from ops_eval.judging import GRADING, JudgeUse
from ops_eval.judging.calibration import CalibrationSet, load_set
from ops_eval.judging.calibration.reports import (
    CalibrationReport,
    ItemOutcome,
    append_report,
    read_reports,
    standing,
)
from ops_eval.judging.calibration.run import build_report
from ops_eval.judging.calibration.target import TARGET, Target

PIN = "openai/judge@sha256:abc"
VERSION = GRADING.version


@pytest.fixture(scope="module")
def cset():
    return load_set(SHIPPED_SET)


def report(
    cset, judge_says, *, pin=PIN, version=VERSION, target=TARGET, cached=False
) -> CalibrationReport:
    """A report of `cset` where the judge says `judge_says(item)`: True, False or an error."""
    outcomes = []
    for item in cset.items:
        said = judge_says(item)
        common = {"id": item.id, "label": item.label, "length": item.length}
        if isinstance(said, str):
            outcomes.append(ItemOutcome(**common, error=said))
        else:
            verdict = "pass" if said else "fail"
            outcomes.append(ItemOutcome(**common, verdict=verdict, cached=cached))
    use = JudgeUse(pin=pin, prompt_versions={"grade": version}, calls=len(outcomes))
    return build_report(outcomes, cset, target, judge=use, prompt_version=version, seconds=1.0)


def honest(item):
    return item.labelled_pass


def always_pass(item):
    return True


def test_reports_append_in_order_and_read_back_equal(tmp_path, cset):
    log = tmp_path / "reports.jsonl"
    first, second = report(cset, honest), report(cset, always_pass)
    assert append_report(first, log) == 1
    assert append_report(second, log) == 2
    assert read_reports(log) == [first, second]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[1]["prev"] == lines[0]["hash"] and lines[0]["prev"] == "0" * 64
    assert lines[0]["meets_target"] is True and lines[1]["meets_target"] is False
    assert lines[0]["judge_pin"] == PIN and lines[0]["prompt_version"] == VERSION
    assert {o["id"] for o in lines[0]["outcomes"]} == {i.id for i in cset.items}


def test_an_edited_line_is_refused_naming_it(tmp_path, cset):
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, honest), log)
    append_report(report(cset, always_pass), log)
    lines = log.read_text().splitlines(keepends=True)
    edited = lines[1].replace('"meets_target":false', '"meets_target":true')
    assert edited != lines[1]
    log.write_text(lines[0] + edited)
    with pytest.raises(OpsEvalError) as info:
        read_reports(log)
    assert info.value.code == 2
    assert str(info.value) == (
        f"{log}: line 2: does not match its hash (the line was edited) (the calibration report "
        "log is append-only; restore it from a copy)"
    )
    # nothing more can be appended to it either
    with pytest.raises(OpsEvalError):
        append_report(report(cset, honest), log)
    assert log.read_text() == lines[0] + edited


def test_a_line_rehashed_after_an_edit_is_still_refused(tmp_path, cset):
    """Whoever recomputes the hash of a line turned from missed to met cannot make its figures
    follow: the report must say no more than its items show."""
    from ops_eval.deciding.ledger.chain import entry_hash

    log = tmp_path / "reports.jsonl"
    append_report(report(cset, always_pass), log)
    fields = json.loads(log.read_text())
    fields.update(meets_target=True, missed=[])
    fields["hash"] = entry_hash(fields)
    log.write_text(json.dumps(fields) + "\n")
    with pytest.raises(OpsEvalError) as info:
        read_reports(log)
    assert "line 1: not a calibration report log entry" in str(info.value)
    assert "missed does not follow from the metrics and the target" in str(info.value)


def test_a_report_must_follow_from_its_items(cset):
    good = report(cset, honest)
    data = good.model_dump()
    data["metrics"]["tp"] += 1
    with pytest.raises(ValueError, match="metrics do not follow from the outcomes"):
        CalibrationReport.model_validate(data)
    with pytest.raises(ValueError, match="a verdict or an error"):
        ItemOutcome(id="x", label="pass", length=3, verdict="pass", error="boom")


def test_no_report_is_uncalibrated(tmp_path):
    ok, why = standing(PIN, VERSION, tmp_path / "none.jsonl")
    assert not ok
    assert why.startswith(f"no calibration report for judge {PIN} with prompt {VERSION}")


def test_a_met_target_is_calibrated_and_the_latest_report_decides(tmp_path, cset):
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, honest), log)
    ok, why = standing(PIN, VERSION, log)
    assert ok and why.startswith(
        "calibrated: its latest calibration on the project's set: agreement 54/54 = 1.00, kappa "
        "1.00, 0 error(s), at "
    )
    assert "; meets the project's target (agreement >= 0.85, kappa >= 0.60)" in why
    append_report(report(cset, always_pass), log)  # re-measured and found wanting
    ok, why = standing(PIN, VERSION, log)
    assert not ok
    assert why.startswith(
        "below target: its latest calibration on the project's set: agreement 28/54 = 0.52, "
        "kappa 0.00"
    )
    assert why.endswith(
        "the project's target (agreement >= 0.85, kappa >= 0.60) is missed: agreement 28/54 = "
        "0.52 is below 0.85; kappa 0.00 is below 0.60"
    )


def test_standing_is_per_pin_and_prompt_version(tmp_path, cset):
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, honest), log)
    assert standing(PIN, VERSION, log)[0]
    assert not standing("openai/other-judge", VERSION, log)[0]
    ok, why = standing(PIN, "grade-000000000000", log)
    assert not ok and "no calibration report" in why


def test_a_report_made_under_a_lower_target_does_not_count_now(tmp_path, cset):
    # 47 of 54 agree (0.87 >= 0.85): the judge fails 7 of the 28 passes.
    # kappa: po = 47/54; judge pass 21/54; human pass 28/54;
    #   pe = (28/54)(21/54) + (26/54)(33/54) = (588 + 858)/2916 = 0.49588
    #   kappa = (0.87037 - 0.49588)/(1 - 0.49588) = 0.7429 -- meets the project's target.
    passes = [i.id for i in cset.items if i.labelled_pass][:7]
    strict = report(cset, lambda i: i.labelled_pass and i.id not in passes)
    assert strict.meets_target and strict.metrics.agreement.k == 47
    assert strict.metrics.kappa == pytest.approx(0.7429, abs=1e-4)
    # A judge measured under an easier bar (agreement 0.5, kappa 0.2) that met it: it passes
    # every pass and 10 of the 26 fails -> tp 28, fp 10, tn 16: agreement 44/54 = 0.815, under
    # today's 0.85. (kappa: judge pass 38/54; pe = (28/54)(38/54) + (26/54)(16/54) = 0.50754;
    # kappa = (0.81481 - 0.50754)/(1 - 0.50754) = 0.6240)
    fails = [i.id for i in cset.items if not i.labelled_pass][:10]
    lenient = report(
        cset, lambda i: i.labelled_pass or i.id in fails, target=Target(agreement=0.5, kappa=0.2)
    )
    assert lenient.meets_target and lenient.target.agreement == 0.5
    assert lenient.metrics.agreement.k == 44
    assert lenient.metrics.kappa == pytest.approx(0.6240, abs=1e-4)
    log = tmp_path / "reports.jsonl"
    append_report(lenient, log)
    ok, why = standing(PIN, VERSION, log)
    assert not ok and "the project's target (agreement >= 0.85, kappa >= 0.60) is missed" in why
    assert why.endswith("agreement 44/54 = 0.81 is below 0.85")


def test_judge_errors_keep_a_judge_uncalibrated(tmp_path, cset):
    first = cset.items[0].id
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, lambda i: "timeout" if i.id == first else i.labelled_pass), log)
    ok, why = standing(PIN, VERSION, log)
    assert not ok and "1 of 54 items got no verdict (judge errors)" in why


# -- only the project's calibration set, as it is now, counts --------------------------------


def copies(tmp_path, cset) -> CalibrationSet:
    """Two answers (one pass, one fail) copied 20 times each under new ids: 40 items, built in
    memory (the loader refuses such a file)."""
    good = next(i for i in cset.items if i.labelled_pass)
    bad = next(i for i in cset.items if not i.labelled_pass)
    items = [i.model_copy(update={"id": f"{i.id}-{n}"}) for n in range(20) for i in (good, bad)]
    return CalibrationSet(path=tmp_path / "copies.yaml", sha256="c" * 64, items=items)


def quick_look(tmp_path, cset) -> CalibrationSet:
    items = [i for i in cset.items if i.labelled_pass][:2]
    items += [i for i in cset.items if not i.labelled_pass][:2]
    return CalibrationSet(path=tmp_path / "quick.yaml", sha256="9" * 64, items=items)


def test_a_set_of_copies_that_meets_its_target_does_not_certify(tmp_path, cset):
    log = tmp_path / "reports.jsonl"
    copied = report(copies(tmp_path, cset), honest)
    assert copied.meets_target and copied.certifies  # 40/40 on 40 items: it met its target
    append_report(copied, log)
    ok, why = standing(PIN, VERSION, log)
    assert not ok
    assert why.startswith(
        f"not calibrated on the project's calibration set as it is now ({SHIPPED_SET}, sha256 "
        f"{cset.sha256[:12]}): 1 report(s) for judge {PIN} with prompt {VERSION} in {log}, "
        "none of which counts (the latest: made on "
    )
    assert why.endswith("calibrate it on the current set (`ops-eval calibrate`)")


def test_a_quick_look_after_a_certification_does_not_revoke_it(tmp_path, cset):
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, honest), log)
    append_report(report(quick_look(tmp_path, cset), lambda i: not i.labelled_pass), log)
    ok, why = standing(PIN, VERSION, log)
    assert ok, why
    assert (
        "agreement 54/54" in why and "(1 later report(s) do not count; the latest: made on " in why
    )


def test_a_report_on_an_earlier_version_of_the_set_stops_counting(tmp_path, cset):
    """The shipped set changed after the judge was certified: its report no longer counts."""
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, honest), log)
    assert standing(PIN, VERSION, log)[0]
    changed = tmp_path / "set.yaml"
    changed.write_text(SHIPPED_SET.read_text().replace("version: 1\n", "version: 1 # v2\n", 1))
    ok, why = standing(PIN, VERSION, log, set_path=changed)
    assert not ok
    assert "not calibrated on the project's calibration set as it is now" in why
    assert f"(sha256 {cset.sha256[:12]}), not on the project's calibration set as it is" in why


def test_a_report_whose_items_are_not_the_sets_does_not_count(tmp_path, cset):
    """The set's sha256, but a label flipped in the outcomes: it does not count."""
    first = cset.items[0]
    flipped = first.model_copy(update={"label": "fail" if first.labelled_pass else "pass"})
    relabelled = cset.model_copy(update={"items": [flipped, *cset.items[1:]]})
    log = tmp_path / "reports.jsonl"
    append_report(report(relabelled, lambda i: i.label == "pass"), log)
    ok, why = standing(PIN, VERSION, log)
    assert not ok
    assert "(the latest: its items' ids or labels are not those of the project's" in why


def test_a_report_with_cached_verdicts_does_not_count(tmp_path, cset):
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, honest, cached=True), log)
    ok, why = standing(PIN, VERSION, log)
    assert not ok and "(the latest: 54 verdict(s) came from the cache)" in why


def test_a_report_that_missed_only_raised_flags_meets_the_project_target(tmp_path, cset):
    passes = [i.id for i in cset.items if i.labelled_pass][:1]
    raised = report(
        cset, lambda i: i.labelled_pass and i.id not in passes, target=Target(0.99, 0.9)
    )
    assert not raised.meets_target  # 53/54 = 0.98 < 0.99
    log = tmp_path / "reports.jsonl"
    append_report(raised, log)
    ok, why = standing(PIN, VERSION, log)
    assert ok and "agreement 53/54" in why and "meets the project's target" in why


def test_an_unreadable_project_set_is_refused(tmp_path, cset):
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, honest), log)
    with pytest.raises(OpsEvalError) as info:
        standing(PIN, VERSION, log, set_path=tmp_path / "missing.yaml")
    assert info.value.code == 2 and "missing.yaml" in str(info.value)


def _forged_certification(cset):
    """A forger's line: the honest report of a judge that always passes, its verdicts replaced
    by the labels -- a report that follows from its items, as a recomputed one does."""
    forged = report(cset, honest).model_dump(mode="json")
    return lambda bodies: [*bodies, forged]


def test_unsigned_a_forged_report_with_its_chain_recomputed_certifies(tmp_path, cset):
    """The documented limit of an unsigned log, shown: the forgery is indistinguishable."""
    from support import forge_ledger

    log = tmp_path / "reports.jsonl"
    append_report(report(cset, always_pass), log)
    forge_ledger(log, _forged_certification(cset))
    assert standing(PIN, VERSION, log)[0] is True


@pytest.mark.parametrize("forger_key", [None, b"another-key-of-16-chars"], ids=["none", "other"])
def test_signed_a_forged_report_is_refused(tmp_path, cset, ops_env, forger_key):
    from support import forge_ledger

    ops_env.setenv("OPS_LEDGER_KEY", "a-secret-of-ci-not-of-the-runner")
    log = tmp_path / "reports.jsonl"
    append_report(report(cset, always_pass), log)
    assert standing(PIN, VERSION, log)[0] is False  # the honest, signed report reads back
    forge_ledger(log, _forged_certification(cset), key=forger_key)
    with pytest.raises(OpsEvalError, match="line 1: (not signed|its signature is not)"):
        standing(PIN, VERSION, log)
