"""The embedded model as the judge.

Two tests, each able to fail:

- live and slow: `ops-eval calibrate` starts the llama.cpp server and grades a small set (six
  items, both classes) through LiteLLM and its HTTP route. Six items from a set of one's own
  certify nothing whatever the model answers, so the test does not ask whether the model is
  good: it checks that every verdict came from the server (one call per item, no cache), that
  the report's figures are those of its own per-item outcomes, that it says why it certifies
  nothing, and that the gate refuses the judge on it. Never skipped silently: only
  OPS_SKIP_EMBEDDED_TEST=1 skips it, and the skip says so;
- fast: the committed report log (`evals/calibration/reports.jsonl`) holds the embedded judge's
  calibration on the project's calibration set as it is now, with its pin derived from the
  GGUF it runs (never spelt here), and it misses the target -- agreement below 0.85 -- so the
  gate refuses that judge. The full set takes minutes on two cores, so that report is made by
  hand (`OPS_JUDGE_MODEL=embedded ops-eval calibrate`) and committed; this test fails when the
  set, the pin or the grading prompt changes until it is made again.
"""

from __future__ import annotations

import pytest
from calibration_helpers import SHIPPED_SET, calibrate_cli, isolate, shipped_items, write_set
from judged_runs import judge_gating_policy, write_run

from ops_eval.base.settings import current
from ops_eval.cli import main
from ops_eval.judging import GRADING, JudgeUse
from ops_eval.judging.calibration import load_set, measure, not_counted, read_reports, standing
from ops_eval.judging.calibration.target import TARGET
from processes import TAG, llama_servers, new_tag
from support import REPO

COMMITTED_LOG = REPO / "evals" / "calibration" / "reports.jsonl"

skip_unless_embedded = pytest.mark.skipif(
    current().skip_embedded_test,
    reason="OPS_SKIP_EMBEDDED_TEST=1: the embedded judge's calibration test was skipped",
)


def embedded_judge_pin() -> str:
    """The embedded judge's pin, derived from the GGUF the package ships."""
    from ops_eval.judging.setup import embedded_pin
    from ops_eval.models.embedded import embedded_gguf

    return embedded_pin(embedded_gguf())


@pytest.mark.e2e
@skip_unless_embedded
def test_the_embedded_judge_answers_every_item_itself_and_a_small_set_certifies_nothing(
    tmp_path, ops_env, monkeypatch, capsys
):
    reports = isolate(tmp_path, ops_env)
    ops_env.setenv("OPS_JUDGE_MODEL", "embedded")
    ops_env.delenv("OPS_JUDGE_BASE_URL")
    items = sorted(shipped_items(), key=lambda i: len(i["answer"]))
    small = [i for i in items if i["label"] == "pass"][:3]
    small += [i for i in items if i["label"] == "fail"][:3]
    path = write_set(tmp_path, small)

    monkeypatch.setenv(TAG, tag := new_tag())  # its server told apart from any other here
    before = llama_servers(tag)
    code = calibrate_cli(["--set", str(path)])
    out, err = capsys.readouterr()
    assert code == 1, err[-2000:]  # a report, and it does not certify
    (report,) = read_reports(reports)
    assert report.judge_pin == embedded_judge_pin()
    # every verdict came from the server: one call per item, none from a cache
    assert report.metrics.items == 6 and report.judge.calls == 6
    assert report.judge.cache_hits == 0 and not any(o.cached for o in report.outcomes)
    assert report.judge.tokens > 0
    # the figures are those of the per-item outcomes
    assert report.metrics == measure([o.graded for o in report.outcomes])
    agreeing = sum(o.agrees for o in report.outcomes)
    assert report.metrics.agreement.k == agreeing
    assert f"agreement {agreeing}/6 = " in out
    # and it says why it certifies nothing: too few items, and not the project's set
    assert not report.certifies and not report.meets_target
    assert report.missed[0].startswith("the set certifies nothing: 6 items, fewer than the 40")
    assert "CERTIFIES NOTHING: 6 items" in out
    assert "kappa >= 0.60: MISSED" in out
    assert (
        "gate: this set is not the project's calibration set: the report is kept, it does not "
        "certify"
    ) in out
    assert not_counted(report, load_set(SHIPPED_SET)) is not None
    assert f"report appended to {reports} (line 1)" in out
    assert llama_servers(tag) <= before, "the embedded judge's server outlived the command"

    # The gate does not accept that judge on that report.
    ok, why = standing(report.judge_pin, report.prompt_version, reports)
    assert not ok and why.startswith("not calibrated on the project's calibration set as it is")
    runs = judge_gating_policy(tmp_path, ops_env, monkeypatch)
    use = JudgeUse(pin=report.judge_pin, prompt_versions={"grade": report.prompt_version}, calls=10)
    write_run(runs, ["pass"] * 10, judge=use)
    assert main(["gate", "cand0001"]) == 1
    out = capsys.readouterr().out
    assert f"FAIL: llm_judge: judge {report.judge_pin} (prompt {report.prompt_version})" in out
    assert "is uncalibrated, so it cannot gate: not calibrated on the project's calibration" in out


def test_the_committed_log_holds_the_embedded_judges_calibration_and_it_misses(local_installed):
    """Needs the committed report regenerated whenever the set, the pin's spelling or the
    grading prompt changes: `OPS_JUDGE_MODEL=embedded ops-eval calibrate`."""
    pin = embedded_judge_pin()
    cset = load_set(SHIPPED_SET)
    mine = [
        r
        for r in read_reports(COMMITTED_LOG)
        if r.judge_pin == pin and r.prompt_version == GRADING.version
    ]
    counted = [r for r in mine if not_counted(r, cset) is None]
    assert counted, (
        f"{COMMITTED_LOG} holds no report for the embedded judge {pin} with prompt "
        f"{GRADING.version} on the project's calibration set as it is now (sha256 "
        f"{cset.sha256[:12]}); {len(mine)} on other sets or versions of it. Make it with "
        "`OPS_JUDGE_MODEL=embedded ops-eval calibrate` and commit it"
    )
    report = counted[-1]
    assert report.metrics.items == len(cset.items) and report.certifies
    assert report.metrics.agreement.rate is not None
    assert report.metrics.agreement.rate < TARGET.agreement
    assert not report.meets_target and report.missed
    ok, why = standing(pin, GRADING.version, COMMITTED_LOG)
    assert not ok and why.startswith("below target: its latest calibration on the project's set")
