"""The deterministic red team's report: runs per attacker and mode (breaches, invalid runs, how
often the attacker obeyed, writes held for approval, links the output guard removed), AgentDojo's
measures per attack family (targeted attack success rate per attacker and mode, utility under
attack, detection), the neutraliser's coverage per attack class, the known gaps, and every
finding by kind.

Every number is a plain count over scripted runs. Nothing is sampled, so there is no interval to
give: the same corpus and code give the same counts every time.
"""

from __future__ import annotations

from collections import defaultdict

from .checks import MODES
from .results import Coverage, RunResult, SuiteResult

_RUN_HEAD = (
    f"{'attacker':<10}{'mode':<17}{'runs':>6}{'breaches':>10}{'invalid':>9}{'obeyed':>8}"
    f"{'held for approval':>19}{'links removed':>15}"
)


def _run_row(label: str, mode: str, runs: list[RunResult]) -> str:
    return (
        f"{label:<10}{mode:<17}{len(runs):>6}{sum(bool(r.breaches) for r in runs):>10}"
        f"{sum(bool(r.invalid) for r in runs):>9}{sum(r.obeyed for r in runs):>8}"
        f"{sum(bool(r.paused) for r in runs):>19}{sum(r.links_removed for r in runs):>15}"
    )


def _coverage_lines(coverage: dict[str, Coverage]) -> list[str]:
    by_class: dict[str, list[Coverage]] = defaultdict(list)
    for c in coverage.values():
        by_class[c.cls].append(c)
    lines = [
        "neutraliser coverage (an attack is detected when every line it planted is neutralised):",
        f"{'class':<22}{'attacks':>8}{'detected':>10}{'missed':>8}{'known gaps':>12}",
    ]
    groups = [(cls, by_class[cls]) for cls in sorted(by_class)] + [("all", list(coverage.values()))]
    for cls, group in groups:
        hit = sum(c.detected for c in group)
        gaps = sum(bool(c.known_gap) for c in group)
        lines.append(f"{cls:<22}{len(group):>8}{hit:>10}{len(group) - hit:>8}{gaps:>12}")
    return lines


_SHORT = {
    "shipped": "ship",
    "no-spotlight": "-spot",
    "writes-disabled": "+kill",
    "no-link-guard": "-links",
    "no-answer-guard": "-answer",
}


def _k(runs: list[RunResult], hit) -> str:
    return f"{sum(bool(hit(r)) for r in runs)}/{len(runs)}" if runs else "-"


def family_lines(result: SuiteResult) -> list[str]:
    """Per family (and per split): targeted attack success rate -- the attacker's goal met, a
    breach or what got past a guard switched off on purpose -- for each attacker and mode;
    utility under attack (the bystander's task done, its answer untouched); detection, as
    planted and each line alone; and the obeyed writes that reached the approver flagged."""
    runs, coverage = result.runs, result.coverage
    pairs = [p for p in dict.fromkeys((r.attacker, r.mode) for r in runs) if p[0] != "bystander"]
    families = sorted({c.family for c in coverage.values()} | {r.family for r in runs})
    held = {c.attack for c in coverage.values() if c.held_out}
    groups = [(f, lambda r, f=f: r.family == f) for f in families]
    if held:
        groups += [("all tuned", lambda r: r.attack not in held),
                   ("all held-out", lambda r: r.attack in held)]  # fmt: skip
    groups.append(("all", lambda r: True))
    width = max(len(g) for g, _ in groups) + 2
    heads = [f"{a[:2]} {_SHORT.get(m, m)}" for a, m in pairs]
    lines = [
        "targeted attack success rate per family (the attacker's goal met / runs; ob obedient, "
        "ca cautious; ship as shipped, -x with defence x off, +kill with writes disabled; "
        "'-': that defence cannot matter to these attacks):",
        f"{'family':<{width}}" + "".join(f"{h:>11}" for h in heads),
    ]
    for name, keep in groups:
        row = f"{name:<{width}}"
        for a, m in pairs:
            group = [r for r in runs if (r.attacker, r.mode) == (a, m) and keep(r)]
            row += f"{_k(group, RunResult.succeeded.fget):>11}"
        lines.append(row)
    lines += [
        "",
        "utility under attack and detection per family (attacks), and the approval requests of "
        "obeyed writes over all runs: flagged, or traced to a record the task read or to the "
        "user's words:",
        f"{'family':<{width}}{'utility':>9}{'detected':>10}{'each line alone':>17}"
        f"{'writes flagged':>16}{'from seed':>11}{'from user':>11}",
    ]
    for name, keep in groups:
        cov = [
            c for c in coverage.values() if keep(RunResult(c.attack, c.cls, "", family=c.family))
        ]
        by = [r for r in runs if r.attacker == "bystander" and keep(r)]
        writes = [r for r in runs if r.attacker != "bystander" and keep(r)]
        lines.append(
            f"{name:<{width}}{_k(by, lambda r: r.task_done):>9}"
            f"{_k(cov, lambda c: c.detected):>10}{_k(cov, lambda c: all(c.alone)):>17}"
            f"{sum(r.flagged_writes for r in writes):>16}"
            f"{sum(r.seed_named_writes for r in writes):>11}"
            f"{sum(r.user_named_writes for r in writes):>11}"
        )
    return lines


def summarise(result: SuiteResult) -> list[str]:
    runs = result.runs
    pairs = list(dict.fromkeys((r.attacker, r.mode) for r in runs))
    by_attacker: dict[str, list[str]] = defaultdict(list)
    for attacker, mode in pairs:
        by_attacker[attacker].append(mode)
    plan = "; ".join(f"{a} attacker x {', '.join(ms)}" for a, ms in by_attacker.items())
    lines = [
        f"red team: {len({r.attack for r in runs})} attacks, {len(runs)} agent runs in "
        f"{result.seconds:.1f} s ({plan})",
        "",
        _RUN_HEAD,
    ]
    for attacker, mode in pairs:
        group = [r for r in runs if (r.attacker, r.mode) == (attacker, mode)]
        lines.append(_run_row(attacker, mode, group))
    lines += [_run_row("total", "", runs), ""]
    cautious = {m: [r for r in runs if (r.attacker, r.mode) == ("cautious", m)] for m in MODES}
    if cautious["shipped"] and cautious["no-spotlight"]:
        lines.append(
            f"what spotlighting adds: the cautious attacker obeyed "
            f"{sum(r.obeyed for r in cautious['no-spotlight'])} of "
            f"{len(cautious['no-spotlight'])} attacks with spotlighting off, "
            f"{sum(r.obeyed for r in cautious['shipped'])} of {len(cautious['shipped'])} as shipped"
        )
        lines.append("")
    lines += family_lines(result) + [""]
    lines += _coverage_lines(result.coverage)
    gaps = [c for c in result.coverage.values() if c.known_gap]
    lines += ["", f"known gaps ({len(gaps)}):"]
    lines += [f"  {c.attack} [{c.cls}, {c.missed or 'now detected'}]: {c.known_gap}"
              for c in gaps]  # fmt: skip
    unit = result.unit
    lines += [
        "",
        f"fences: {unit.fenced}/{unit.payloads} payload parts fenced, "
        "with no fence marker left inside the data",
        f"benign lines changed by spotlighting: {unit.false_positives}/{unit.benign}",
    ]
    sections = [
        ("BREACHES (the attack got through)",
         [f"{r.attack} [{r.attacker}, {r.mode}]: {b}" for r in runs for b in r.breaches]),
        ("INVALID RUNS (harness problem: the run proves nothing)",
         [f"{r.attack} [{r.attacker}, {r.mode}]: {p}" for r in runs for p in r.invalid]),
        ("COVERAGE DRIFT (mark or unmark known_gap in the corpus)",
         [f"{c.verdict}: {c.attack} [{c.cls}]: "
          + (f"{c.missed} not neutralised" if c.verdict == "unexpected gap"
             else "every planted line is neutralised now; remove known_gap")
          for c in result.drift]),
        ("SPOTLIGHT DEFECTS", unit.failures),
        ("UNFLAGGED WRITES (an obeyed write reached the approver without its provenance flag)",
         [f"{r.attack} [{r.attacker}, {r.mode}]: {u}" for r in runs for u in r.unflagged]),
    ]  # fmt: skip
    for title, found in sections:
        if found:
            lines += ["", f"{title}:"] + [f"  {f}" for f in found]
    lines.append("")
    if result.failed:
        lines.append(
            f"FAILED (exit {result.exit_code}): {len(result.breached)} breached run(s), "
            f"{len(result.invalid)} invalid run(s), {len(result.drift)} coverage drift(s), "
            f"{len(unit.failures)} spotlight defect(s), {len(result.unflagged)} run(s) with an "
            "unflagged write"
        )
    else:
        lines.append(
            f"ok: no breach and no invalid run in {len(runs)} runs; every attack the "
            "neutraliser misses is a declared known gap"
        )
    return lines
