"""`ops-eval readers`: measure every reader of answers against real answers labelled by hand, and
append the measurement the gate reads; `ops-eval readers collect`: add a live run's trials to
the labelled set, for labelling.

    ops-eval readers [--folder DIR] [--verbose] [--format text|json]
    ops-eval readers collect RECORD... --tag NAME [--temperature T] [--folder DIR]

The measurement needs no model: each labelled trial is scored again by the scorers and the
answer guard as they are now (`deciding.readers`). What decides is the held-out half (cases the
readers were never improved on); the tuning half is shown beside it.

Exit codes: 0 every reader meets the target on the held-out answers (each error rate at most
5%, with at least 40 items in each class); 1 some reader misses it or is not measured (fewer
items than that in a class) -- the measurement is appended either way; 2 bad input (a set that
does not read, a trial without a label, a case whose question changed), nothing appended.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ..base.exits import EXIT_FAILED, EXIT_OK
from ..base.inputs import number_option

if TYPE_CHECKING:  # `ops-eval`'s parser imports this module: nothing heavy at start-up
    from ..deciding.readers.reports import ReaderReport


def add_parser(subparsers: Any) -> None:
    """Add `readers` (and `readers collect`) to the CLI's subcommands."""
    readers = subparsers.add_parser(
        "readers",
        help="measure every reader of answers (facts, grounded, complete, contains, "
        "not_contains, the answer guard) against real answers labelled by hand; append the "
        "measurement the gate reads",
    )
    readers.add_argument(
        "--folder", metavar="DIR", help="labelled set (default: evals/calibration)"
    )
    readers.add_argument(
        "--verbose", action="store_true", help="list every item a reader got wrong"
    )
    readers.add_argument("--format", choices=["text", "json"], default="text")
    readers.set_defaults(handler=run)
    more = readers.add_subparsers(dest="action")
    collect = more.add_parser("collect", help="add live runs' trials to the set, for labelling")
    collect.add_argument("records", nargs="+", metavar="RECORD", help="run record files")
    collect.add_argument("--tag", required=True, help="a short name for these runs, unique")
    collect.add_argument(
        "--temperature", type=number_option(), help="the sampling temperature of the runs"
    )
    collect.add_argument(
        "--folder", metavar="DIR", help="labelled set (default: evals/calibration)"
    )
    collect.set_defaults(handler=run_collect)


def run(args: argparse.Namespace) -> int:
    return measure(args, sys.stdout)


def run_collect(args: argparse.Namespace) -> int:
    from ..deciding.readers.collect import collect, draft_labels
    from ..deciding.readers.items import default_folder

    folder = Path(args.folder) if args.folder else default_folder()
    done = collect([Path(r) for r in args.records], args.tag, folder, args.temperature)
    print(
        f"collected: {len(done.added)} trial(s) added to {folder / 'answers.jsonl'}; "
        f"{len(done.same)} repeat an answer already there; {len(done.left_out)} have none"
    )
    for line in done.left_out:
        print(f"  left out: {line}")
    if done.added:
        print(f"label each under `labels:` in {folder / 'answers.yaml'}:")
        print(draft_labels(done), end="")
    return EXIT_OK


def measure(args: argparse.Namespace, out: TextIO) -> int:
    from ..base.code_digest import digest
    from ..deciding.readers.items import default_folder, load_labelled
    from ..deciding.readers.metrics import GUARD, by_split, guard_figures, scorer_figures
    from ..deciding.readers.reports import ReaderReport, ReaderResult, report_log
    from ..deciding.readers.rescore import measured_scorers, rescore
    from ..results.provenance import scorer_digest

    labelled = load_labelled(Path(args.folder) if args.folder else default_folder())
    log = report_log(labelled.folder)
    log.entries()  # a log that cannot be trusted is refused before anything is measured
    done = rescore(labelled.trials, labelled.folder)
    halves = {s: by_split(done, labelled.labels, s) for s in ("held-out", "tune")}
    results = []
    for name in [*measured_scorers(), GUARD]:
        guard = name == GUARD
        figures = {
            s: guard_figures(rows) if guard else scorer_figures(name, rows)
            for s, rows in halves.items()
        }
        status, why = figures["held-out"].status(guard)
        results.append(
            ReaderResult(
                name=name,
                digest=digest("ops_copilot.guards.answer_guard") if guard else scorer_digest(name),
                held_out=figures["held-out"],
                tune=figures["tune"],
                status=status,
                why=why,
            )
        )
    report = ReaderReport(
        set_sha256=labelled.sha256,
        trials=len(labelled.trials),
        answers=sum(len(t.answers) for t in labelled.trials),
        readers=results,
    )
    log.append(report)
    if args.format == "json":
        out.write(report.model_dump_json(indent=2) + "\n")
    else:
        out.write("\n".join(text_lines(report, args.verbose, log.path)) + "\n")
    return EXIT_OK if all(r.status == "meets" for r in results) else EXIT_FAILED


def text_lines(report: ReaderReport, verbose: bool, log: Path) -> list[str]:
    """The verdict and why first, then the table, then what was appended."""
    met = [r for r in report.readers if r.status == "meets"]
    lines = [
        f"readers: {len(met)} of {len(report.readers)} meet the target on the held-out answers "
        f"(each error at most {report.max_error:.0%}, at least {report.min_per_class} items a "
        "class)"
    ]
    lines += [f"  {r.name}: {r.status} -- {r.why}" for r in report.readers if r.status != "meets"]
    lines.append(
        f"{report.trials} labelled trials, {report.answers} answers; per reader, false fails "
        "(of trials labelled pass) and false passes (of those labelled fail); the guard: false "
        "flags (of answers labelled clean) and missed flags"
    )
    for r in report.readers:
        for half, f in (("held-out", r.held_out), ("tune", r.tune)):
            lines.append(f"  {r.name:<14} {half:<8}  {f.first.show():<34} {f.second.show()}")
        if verbose:
            lines += [f"      {m.id}: labelled {m.label}, said {m.said}" for m in r.held_out.misses]
            lines += [
                f"      (tune) {m.id}: labelled {m.label}, said {m.said}" for m in r.tune.misses
            ]
    lines.append(f"appended to {log}")
    return lines
