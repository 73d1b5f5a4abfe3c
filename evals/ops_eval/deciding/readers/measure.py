"""Every reader of answers measured against the labelled set (`ops-eval readers`): each
labelled trial scored again by the readers as they are now (`rescore`), their false fails and
false passes per half (`metrics`), the measurement appended to its log (`reports`), and the
text the command prints (`text_lines`: the verdict and why first, then the table).

What decides is the held-out half (cases the readers were never improved on); the tuning half
is shown beside it. Exit codes (`ReaderReport`'s readers all `meets`): 0 every reader meets the
target on the held-out answers (each error rate at most 5%, with at least 40 items in each
class); 1 some reader misses it or is not measured -- the measurement is appended either way;
2 bad input (a set that does not read, a trial without a label, a case whose question
changed), nothing appended.
"""

from __future__ import annotations

from pathlib import Path

from .reports import ReaderReport


def measure_readers(folder: Path | None = None) -> tuple[ReaderReport, Path]:
    """Every reader measured on the labelled set in `folder` (default: evals/calibration),
    the measurement appended to its log; (the report, the log's path). OpsEvalError (exit 2)
    for a set that does not read or a log that cannot be trusted, before anything is measured."""
    from ...base.code_digest import digest
    from ...results.provenance import scorer_digest
    from .items import default_folder, load_labelled
    from .metrics import GUARD, by_split, guard_figures, scorer_figures
    from .reports import ReaderResult, report_log
    from .rescore import measured_scorers, rescore

    labelled = load_labelled(folder or default_folder())
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
    return report, log.path


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
