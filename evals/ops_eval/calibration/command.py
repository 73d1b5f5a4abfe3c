"""`ops-eval calibrate`: measure the configured judge (OPS_JUDGE_*) against the labelled set and
append the report the gate reads.

    ops-eval calibrate [--set PATH] [--min-agreement X] [--min-kappa Y] [--no-cache]
                       [--format text|json]

Everything that can be checked without the judge is checked first, so a bad input costs no
judge call and leaves nothing behind: the flags (they may only raise the target), the set, a
set whose labels are all one class (it certifies nothing), the report log's chain, the judge
budget and the judge's configuration.

Exit codes: 0 the target is met; 1 it is missed (the report is appended and says MISSED with
each reason); 2 bad input or configuration -- no judge configured included, since calibrating
no judge is a mistake, not a result -- and nothing is appended; 3 the judge could not be
started, or gave no verdict on any item: nothing was measured, so nothing is appended and the
judge's standing stays what its last report says (a network failure is not evidence about a
judge's agreement with people).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, TextIO

from ..exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError, one_line


def _fraction(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{raw} is not a finite number")
    return value


def add_parser(subparsers: Any) -> None:
    """Add `calibrate` to the CLI's subcommands."""
    from .metrics import TARGET

    cal = subparsers.add_parser(
        "calibrate",
        help="measure the judge (OPS_JUDGE_*) against human labels; append the report",
    )
    cal.add_argument(
        "--set", metavar="PATH", help="calibration set (default: evals/calibration/set.yaml)"
    )
    cal.add_argument(
        "--min-agreement",
        type=_fraction,
        metavar="X",
        help=f"raise the agreement target (default {TARGET.agreement:g}; never lower)",
    )
    cal.add_argument(
        "--min-kappa",
        type=_fraction,
        metavar="Y",
        help=f"raise the kappa target (default {TARGET.kappa:g}; never lower)",
    )
    cal.add_argument(
        "--no-cache", action="store_true", help="ask the judge again instead of reusing verdicts"
    )
    cal.add_argument("--format", choices=["text", "json"], default="text")
    cal.set_defaults(handler=_cmd_calibrate)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from ..exits import unwind_on_signals

    unwind_on_signals()  # Ctrl-C and SIGTERM stop an embedded judge's server
    return run_calibrate(args, sys.stdout, sys.stderr)


def run_calibrate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """The command: its exit code, its report on `out`, progress and errors on `err`."""
    try:
        return _calibrate(args, out, err)
    except OpsEvalError as exc:
        print(f"error: {exc}", file=err)
        return exc.code


def _calibrate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..judge.budget import gate_budget
    from ..judge.setup import NoJudge, open_judge
    from ..models.choice import ModelUnavailable
    from ..progress import Progress
    from ..settings import current
    from .items import default_set_path, load_set
    from .metrics import TARGET
    from .render import as_json, text_lines
    from .reports import ItemOutcome, append_report, read_reports, report_log
    from .run import calibrate

    target = TARGET.raised(args.min_agreement, args.min_kappa)
    cset = load_set(Path(args.set) if args.set else default_set_path())
    if cset.one_class is not None:
        raise OpsEvalError(
            EXIT_BAD_INPUT,
            f"{cset.path}: every one of its {len(cset.items)} items is labelled "
            f"{cset.one_class}: a set of one class certifies nothing (a judge that always says "
            f"{cset.one_class} would agree with all of it), so no judge was asked",
        )
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
        with open_judge(say, current().runs_dir, budget, cache=not args.no_cache) as judge:
            if isinstance(judge, NoJudge):
                raise OpsEvalError(
                    EXIT_BAD_INPUT,
                    f"{judge.reason}: there is no judge to calibrate (set OPS_JUDGE_MODEL, and "
                    "OPS_JUDGE_BASE_URL for a server of your own)",
                )
            say(
                f"calibrating judge {judge.pin} on {cset.path} ({len(cset.items)} items, "
                f"{cset.passes} pass, {cset.fails} fail)"
            )
            progress = Progress(len(cset.items), "item", err)

            def done(outcome: ItemOutcome) -> None:
                how = outcome.verdict or f"error: {outcome.error}"
                cached = " (cached)" if outcome.cached else ""
                progress.update(
                    one_line(f"{outcome.id} {how}{cached}")[:200], failed=bool(outcome.error)
                )

            try:
                report = calibrate(judge, cset, target, on_item=done)
            finally:
                progress.close()
    except ModelUnavailable as exc:
        print(f"error: the judge could not be started: {exc}; nothing was measured", file=err)
        return EXIT_INFRA
    if report.metrics.errors == report.metrics.items:
        first = next(o.error for o in report.outcomes if o.error)
        print(
            one_line(
                f"error: the judge gave no verdict on any of the {report.metrics.items} items "
                f"(first: {first}); nothing was measured, so no report was appended and the "
                "judge's standing is unchanged"
            ),
            file=err,
        )
        return EXIT_INFRA
    line = append_report(report, log_path)
    if args.format == "json":
        print(as_json(report, log_path, line), file=out)
    else:
        for text in text_lines(report, log_path, line):
            print(text, file=out)
    return EXIT_OK if report.meets_target else EXIT_FAILED
