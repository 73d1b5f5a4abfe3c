"""`ops-eval calibrate`: measure the configured judge (OPS_JUDGE_*) against the set's labels --
given by hand, by this project's engineer (see the set's header) -- and append the report the
gate reads.

    ops-eval calibrate [--set PATH] [--min-agreement X] [--min-kappa Y] [--format text|json]

Everything that can be checked without the judge is checked first, so a bad input costs no
judge call and leaves nothing behind: the flags (they may only raise the target), the set
(duplicates and contradictions refused), a set whose labels are all one class (it certifies
nothing), the project's own calibration set, the report log's chain, the judge budget and the
judge's configuration.

The judge is opened without its verdict cache: every item is asked now, because a cached
verdict -- possibly written by anyone -- is not a measurement of the judge.

Only the project's calibration set (`evals/calibration/set.yaml`, as it is now) certifies a
judge. A report made on another set (`--set`) is appended and kept, and says "this set is not
the project's calibration set: the report is kept, it does not certify"; the gate never counts
it (`reports.standing`).

Exit codes: 0 the target is met on the project's calibration set: the report certifies the
judge; 1 it does not -- the target (as the flags raised it) is missed, with each reason, or the
set is not the project's (the report is appended either way, and a report that misses only a
target the flags raised, on the project's set, still counts for the gate, which judges by the
project's target; the output says so); 2 bad input or configuration -- no judge configured
included, since calibrating no judge is a mistake, not a result -- and nothing is appended; 3
infrastructure, nothing measured, NOTHING appended, and the judge's standing stays what its last
report says: the judge could not be started; or a call failed (`JudgeUnreachable`) or the
judge budget refused one (`budget_blocked`: the spend policy stopped it) -- at the first such
item the command stops and names it, because a network failure or a spend limit is no evidence
about the judge's judgement; or the judge gave no valid verdict on any item (most likely a
judge or schema mode misconfigured, not a measurement). An invalid reply on some items only is
those items' error: it counts against the judge as a disagreement.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..base.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError, one_line
from ..base.inputs import number_option

if TYPE_CHECKING:  # `ops-eval`'s parser imports this module: nothing heavy at start-up
    from ..deciding.calibration.items import CalibrationSet
    from ..deciding.calibration.reports import CalibrationReport


def add_parser(subparsers: Any) -> None:
    """Add `calibrate` to the CLI's subcommands."""
    from ..deciding.calibration.target import TARGET

    cal = subparsers.add_parser(
        "calibrate",
        help="measure the judge (OPS_JUDGE_*) against answers labelled by hand (by this "
        "project's engineer; see the set's header); append the report the gate reads (only the "
        "project's set certifies)",
    )
    cal.add_argument(
        "--set",
        metavar="PATH",
        help="calibration set (default: evals/calibration/set.yaml, the project's: only it "
        "certifies a judge; a report on another set is kept but does not certify)",
    )
    cal.add_argument(
        "--min-agreement",
        type=number_option(),
        metavar="X",
        help=f"raise the agreement target (default {TARGET.agreement:g}; never lower)",
    )
    cal.add_argument(
        "--min-kappa",
        type=number_option(),
        metavar="Y",
        help=f"raise the kappa target (default {TARGET.kappa:g}; never lower)",
    )
    cal.add_argument("--format", choices=["text", "json"], default="text")
    cal.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..base.exits import unwind_on_signals

    unwind_on_signals()  # Ctrl-C and SIGTERM stop an embedded judge's server
    return _calibrate(args, sys.stdout, sys.stderr)


def _gate_says(report: CalibrationReport, project: CalibrationSet) -> tuple[bool, str]:
    """(whether the gate counts `report`, what it makes of it): a report on a set other than the
    project's is kept but does not certify; on the project's set, the project's target decides
    (`reports.standing`), whatever target the flags raised."""
    from ..deciding.calibration.metrics import shortfalls
    from ..deciding.calibration.reports import not_counted
    from ..deciding.calibration.target import TARGET

    elsewhere = not_counted(report, project)
    judge = f"judge {report.judge_pin} with prompt {report.prompt_version}"
    if elsewhere is not None:
        return False, (
            "this set is not the project's calibration set: the report is kept, it does not "
            f"certify ({elsewhere})"
        )
    if shortfalls(report.metrics, TARGET, report.certifies_why):
        return True, f"{judge} is uncalibrated from this report on: the project's target is missed"
    if report.meets_target:
        return True, f"this report certifies {judge}: the project's target is met"
    return True, (
        f"this report certifies {judge}: it missed only the target the flags raised; the gate "
        f"judges by the project's target (agreement >= {TARGET.agreement:.2f}, kappa >= "
        f"{TARGET.kappa:.2f}), which it meets"
    )


def _calibrate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..base.progress import Progress
    from ..base.settings import current
    from ..deciding.calibration.items import default_set_path, load_set
    from ..deciding.calibration.render import as_json, text_lines
    from ..deciding.calibration.reports import (
        ItemOutcome,
        append_report,
        project_set,
        read_reports,
        report_log,
    )
    from ..deciding.calibration.run import CalibrationStopped, calibrate
    from ..deciding.calibration.target import TARGET
    from ..models.choice import ModelUnavailable
    from ..models.judge.setup import NoJudge, open_judge
    from ..validation.gate_config import gate_budget

    target = TARGET.raised(args.min_agreement, args.min_kappa)
    cset = load_set(Path(args.set) if args.set else default_set_path())
    if cset.one_class is not None:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"{cset.path}: every one of its {len(cset.items)} items is labelled "
            f"{cset.one_class}: a set of one class certifies nothing (a judge that always says "
            f"{cset.one_class} would agree with all of it), so no judge was asked",
        )
    project = project_set()  # what the report is compared with; unreadable: exit 2
    log_path = report_log().path
    read_reports(log_path)  # a log that cannot be trusted is refused before any judge call
    budget = gate_budget()
    if budget.problem is not None:
        raise OpsEvalError(
            EXIT_BAD_INPUT, f"no judge budget ({budget.problem}): no judge call can be made"
        )

    def say(line: str) -> None:
        print(line, file=err, flush=True)

    try:
        # No verdict cache: a calibration measures the judge now.
        with open_judge(say, current().runs_dir, budget, cache=False) as judge:
            if isinstance(judge, NoJudge):
                raise OpsEvalError(
                    EXIT_BAD_INPUT,
                    f"{judge.reason}: there is no judge to calibrate (set OPS_JUDGE_MODEL, and "
                    "OPS_JUDGE_BASE_URL for a server of your own)",
                )
            say(
                f"calibrating judge {judge.pin} on {cset.path} ({len(cset.items)} items, "
                f"{cset.passes} pass, {cset.fails} fail), every item asked now (no verdict cache)"
            )
            progress = Progress(len(cset.items), "item", err)

            def done(outcome: ItemOutcome) -> None:
                how = outcome.verdict or f"error: {outcome.error}"
                progress.update(one_line(f"{outcome.id} {how}")[:200], failed=bool(outcome.error))

            try:
                report = calibrate(judge, cset, target, on_item=done)
            finally:
                progress.close()
    except ModelUnavailable as exc:
        print(f"error: the judge could not be started: {exc}; nothing was measured", file=err)
        return EXIT_INFRA
    except CalibrationStopped as stop:
        why = (
            "the judge budget refused the call (budget_blocked: the spend policy stopped it)"
            if stop.kind == "budget_blocked"
            else "the judge could not be reached (unreachable)"
        )
        print(
            one_line(
                f"error: calibration stopped at item {stop.item} ({stop.position} of "
                f"{stop.total}): {why}: {stop.cause}; infrastructure is not evidence about the "
                "judge, so nothing was appended and the judge's standing is unchanged"
            ),
            file=err,
        )
        return EXIT_INFRA
    if report.metrics.errors == report.metrics.items:
        first = next(o.error for o in report.outcomes if o.error)
        print(
            one_line(
                f"error: the judge gave no valid verdict on any of the {report.metrics.items} "
                f"items (first: {first}); nothing was measured (a judge, or its schema mode, "
                "misconfigured?), so no report was appended and the judge's standing is "
                "unchanged"
            ),
            file=err,
        )
        return EXIT_INFRA
    counts, gate = _gate_says(report, project)
    line = append_report(report, log_path)
    trust = report_log(log_path).trust()
    if args.format == "json":
        print(as_json(report, log_path, line, counts=counts, gate=gate, trust=trust), file=out)
    else:
        for text in text_lines(report, log_path, line, gate=gate, trust=trust):
            print(text, file=out)
    return EXIT_OK if report.meets_target and counts else EXIT_FAILED
