"""What `ops-eval run` prints, through the CLI against a scripted OpenAI-compatible server (a
stand-in named as such: `fake_openai`): the verdict leads, one line per failed case names the
expected and the actual call, scorers no case declares are one `n/a` line (never rows of 0/0),
report-only scorers are figures (never pass/fail), the reports are written and named, and the
last line says what exit 1 means. The HTML report leads with the same reasons and draws no
whisker for a category without a verdict."""

from __future__ import annotations

import re

import pytest

from fake_openai import fake_openai, text, tool_call
from ops_eval import load_record
from ops_eval.cli import main
from ops_eval.outputs.report import html_report

# Every first call of a turn lists the services; then an answer that names nothing useful.
CASES = "service-status-inventory,unknown-incident-inc-999"


def _lists_services(request: dict) -> dict:
    if request["messages"][-1]["role"] == "tool":
        return text("Here is what I found.")
    return tool_call("list_services", {})


@pytest.fixture
def ran(tmp_path, ops_env, capsys):
    """(exit code, stdout lines, the record's path) of a two-case run that fails both."""
    out = tmp_path / "runs" / "run.json"
    with fake_openai(_lists_services) as (base, _):
        ops_env.setenv("OPS_AGENT_BASE_URL", base)
        code = main(["run", "--cases", CASES, "--model", "openai/fake", "--output", str(out)])
    return code, capsys.readouterr().out.splitlines(), out


def test_the_verdict_leads_and_each_failed_case_names_the_expected_and_actual_call(ran):
    code, lines, _ = ran
    assert code == 1
    summary = lines[lines.index("") + 1 :]  # after the banner and the plan
    assert summary[0].startswith("FAILED: 2 of 2 case(s) below the gate (IN_ORDER")
    why = summary[summary.index("why (shortest first):") + 1 :][:2]
    status = next(line for line in why if line.startswith("  service-status-inventory #1: "))
    assert "expected get_service_status(name=inventory), got list_services()" in status
    assert any(line.startswith("  unknown-incident-inc-999 #1: trajectory: ") for line in why)


def test_scorers_no_case_declares_are_one_line_and_never_a_rate_of_zero(ran):
    _, lines, _ = ran
    assert not any("0/0 " in line for line in lines)
    (unused,) = [line for line in lines if line.startswith("n/a: ")]
    assert re.match(r"n/a: \d+ scorer\(s\) no case of this run declares \(", unused)
    assert "goal_calls" in unused and "json_equal" in unused


def test_report_only_scorers_are_figures_never_pass_or_fail(ran):
    _, lines, path = ran
    (reports,) = [line for line in lines if line.startswith("report only")]
    assert "partial_credit mean f1 0." in reports
    table = [line for line in lines if line.split()[:1] == ["partial_credit"]]
    assert table == []  # not a row of the scorer table, with a rate beside the gating ones
    page = path.with_suffix(".html").read_text(encoding="utf-8")
    rows = re.findall(r"<tr><td>partial_credit</td><td class='([^']+)'>([^<]+)</td>", page)
    assert rows and all(kind == "report" and result.startswith("report") for kind, result in rows)


def test_the_reports_are_written_and_named_and_the_last_line_says_what_exit_1_means(ran):
    _, lines, path = ran
    summary = lines[lines.index("") + 1 :]
    assert f"report: {path.with_suffix('.html')} (Markdown: run.md)" in lines
    assert lines[-2] == f"run record: {path}"
    assert lines[-4] == summary[0]  # the verdict again, above the paths
    assert lines[-1].startswith("exit 1: the run is below the gate -- measured, not broken")
    page = path.with_suffix(".html").read_text(encoding="utf-8")
    verdict = page.index("FAILED: 2 of 2 case(s) below the gate")
    reasons = page.index("expected get_service_status(name=inventory), got list_services()")
    assert verdict < reasons < page.index("<h2>")  # failures at a glance, before the tables


def test_a_category_without_a_verdict_draws_no_whisker(ran):
    _, _, path = ran
    record = load_record(path)
    emptied = [g.model_copy(update={"rate": g.rate.model_copy(update={"passed": 0, "n": 0})})
               for g in record.categories[:1]]  # fmt: skip
    record = record.model_copy(update={"categories": emptied + record.categories[1:]})
    page = html_report(record)
    svg = page[page.index("<svg") : page.index("</svg>")]
    assert f">{emptied[0].name}</text>" not in svg
    assert f">{record.categories[1].name}</text>" in svg


def test_report_prints_the_verdict_and_the_paths_not_the_markdown(ran, capsys):
    _, _, path = ran
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("FAILED: 2 of 2 case(s) below the gate")
    assert out[1] == f"report: {path.with_suffix('.html')} (Markdown: {path.with_suffix('.md')})"
    assert len(out) == 2
