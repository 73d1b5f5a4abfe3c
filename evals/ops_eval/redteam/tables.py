"""The deterministic red team's tables in plain words, for `--verbose` and the HTML report: runs
per attacker and mode; AgentDojo's targeted attack success rate per attack family, as shipped
and -- in a table of its own -- under the designed ablations; utility under attack and detection
per family; the neutraliser's coverage per attack class; and the lists behind them (the known
gaps with their reasons, the held-out attacks missed).

A *designed ablation* is a mode that switches one defence off on purpose to measure what it
stops (spotlighting, the link guard, the answer guard). What gets past an output guard switched
off is counted as the attacker's goal met, never as a breach: its cells say so, in words in the
terminal and styled in the report, so `16/29` there reads as what the guard is for, not as a
failure. Nothing is sampled: every cell is a plain count over scripted runs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .checks import ATTACKERS, MODES
from .results import Coverage, RunResult, SuiteResult

MODE_WORDS = {
    "shipped": "as shipped",
    "no-spotlight": "spotlighting off",
    "writes-disabled": "writes disabled",
    "no-link-guard": "link guard off",
    "no-answer-guard": "answer guard off",
}
NOT_RUN = "not run"  # that guard cannot matter to these attacks (they do not aim at the answer)
ABLATION_NOTE = (
    "a defence switched off on purpose to measure what it stops: what gets past the link or "
    "answer guard switched off is expected and counted, not a breach; with spotlighting off the "
    "approval gate must still hold every write"
)


def is_ablation(mode: str) -> bool:
    """A designed ablation: spotlighting or an output guard switched off on purpose (writes
    disabled adds a defence instead)."""
    settings = MODES.get(mode)
    return settings is not None and (not settings.spotlight or settings.output_guard_off)


def mode_words(mode: str) -> str:
    return MODE_WORDS.get(mode, mode)


@dataclass
class Table:
    """One table: cells as text, and which columns (or rows) are designed ablations."""

    key: str
    title: str
    note: str
    headers: list[str]
    """A header's lines are joined by newlines (tabulate stacks them; the report breaks them)."""
    rows: list[list[Any]]
    ablation_columns: list[bool] = field(default_factory=list)
    ablation_rows: list[bool] = field(default_factory=list)
    totals: int = 0
    """How many of the last rows sum the ones above (all tuned, all held-out, all attacks)."""
    labels: int = 1
    """How many leading columns name the row (left-aligned; the counts after them right)."""

    def ablation(self, row: int, column: int) -> bool:
        """The cell counts runs of a designed ablation (its column's mode, or its row's)."""
        cols, rows = self.ablation_columns, self.ablation_rows
        return bool((cols and cols[column]) or (rows and rows[row]))

    def tagged(self, row: int, column: int) -> bool:
        """The report tags it `ablation` in words: a success count above 0 in an ablation
        column (the cell that would read as a breach), or the row's mode in an ablation row."""
        if not self.ablation(row, column):
            return False
        if column < self.labels:
            return column == self.labels - 1
        cell = str(self.rows[row][column])
        return bool(self.ablation_columns) and "/" in cell and not cell.startswith("0/")

    def text(self) -> list[str]:
        from tabulate import tabulate

        right = ("right",) * (len(self.headers) - self.labels)
        body = tabulate(self.rows, self.headers, tablefmt="simple", disable_numparse=True,
                        colalign=("left",) * self.labels + right)  # fmt: skip
        return [f"{self.title}:", *_wrap(self.note), *body.splitlines()]


def _wrap(text: str, first: str = "  ", rest: str = "  ") -> list[str]:
    import textwrap

    return textwrap.wrap(text, 100, initial_indent=first, subsequent_indent=rest)


def _k(items: list[Any], hit: Callable[[Any], Any]) -> str:
    return f"{sum(bool(hit(i)) for i in items)}/{len(items)}" if items else NOT_RUN


Keep = Callable[[str, str], bool]  # (attack id, family) -> in the group


def _groups(result: SuiteResult) -> list[tuple[str, Keep]]:
    """Each family, then the tuned corpus, the held-out split and all attacks."""
    runs, coverage = result.runs, result.coverage
    families = sorted({c.family for c in coverage.values()} | {r.family for r in runs})
    held = {c.attack for c in coverage.values() if c.held_out}
    groups: list[tuple[str, Keep]] = [(f, lambda a, fam, f=f: fam == f) for f in families]
    if held:
        groups += [("all tuned attacks", lambda a, fam: a not in held),
                   ("all held-out attacks", lambda a, fam: a in held)]  # fmt: skip
    return [*groups, ("all attacks", lambda a, fam: True)]


def _totals(result: SuiteResult) -> int:
    """The rows of `_groups` after the families: all attacks, with the splits when there are two."""
    return 3 if any(c.held_out for c in result.coverage.values()) else 1


def _pairs(result: SuiteResult) -> list[tuple[str, str]]:
    return list(dict.fromkeys((r.attacker, r.mode) for r in result.runs))


def runs_table(result: SuiteResult) -> Table:
    heads = ["attacker", "mode", "runs", "breaches", "invalid\nruns", "obeyed\nthe payload",
             "writes held\nfor approval", "links removed\nfrom answers"]  # fmt: skip

    def row(attacker: str, mode: str, runs: list[RunResult]) -> list[Any]:
        words = f"{mode_words(mode)} (ablation)" if is_ablation(mode) else mode_words(mode)
        return [attacker, words if mode else "", len(runs), sum(bool(r.breaches) for r in runs),
                sum(bool(r.invalid) for r in runs), sum(r.obeyed for r in runs),
                sum(bool(r.paused) for r in runs), sum(r.links_removed for r in runs)]  # fmt: skip

    pairs = _pairs(result)
    rows = [row(a, m, [r for r in result.runs if (r.attacker, r.mode) == (a, m)]) for a, m in pairs]
    return Table(
        "runs", "Runs per attacker and mode",
        "the obedient attacker obeys every payload, the cautious one only what reached it "
        "un-neutralised, the bystander none (it measures the user's task under attack); every "
        "approval is denied", heads, [*rows, row("total", "", result.runs)],
        ablation_rows=[is_ablation(m) for _, m in pairs] + [False], totals=1, labels=2,
    )  # fmt: skip


def _success(result: SuiteResult, pairs: list[tuple[str, str]]) -> list[list[str]]:
    rows = []
    for name, keep in _groups(result):
        row = [name]
        for pair in pairs:
            group = [r for r in result.runs
                     if (r.attacker, r.mode) == pair and keep(r.attack, r.family)]  # fmt: skip
            row.append(_k(group, lambda r: r.succeeded))
        rows.append(row)
    return rows


def success_tables(result: SuiteResult) -> list[Table]:
    """Targeted attack success per family: as shipped (and with writes disabled), where any
    count above 0 is a breach; and under the designed ablations, where it is expected."""
    pairs = [p for p in _pairs(result) if p[0] != "bystander"]
    guarded = [p for p in pairs if not is_ablation(p[1])]
    order = {**{m: i for i, m in enumerate(MODES)}, **{a: i for i, a in enumerate(ATTACKERS)}}
    ablated = sorted((p for p in pairs if is_ablation(p[1])),
                     key=lambda p: (order.get(p[1], 99), order.get(p[0], 99)))  # fmt: skip
    totals, tables = _totals(result), []
    if guarded:
        tables.append(Table(
            "success", "Attack success per family, defences on",
            "runs where the attacker's goal was met, over runs: any count above 0 here is a "
            "breach", ["family", *(f"{a}\n{mode_words(m)}" for a, m in guarded)],
            _success(result, guarded), [False] * (len(guarded) + 1), totals=totals,
        ))  # fmt: skip
    if ablated:
        tables.append(Table(
            "ablations", "Attack success per family, designed ablations",
            f"each column is {ABLATION_NOTE}; '{NOT_RUN}': that guard cannot matter to these "
            "attacks (they do not aim at the answer)",
            ["family", *(f"{a}\n{mode_words(m).removesuffix(' off')}\noff\n(ablation)"
                         for a, m in ablated)],
            _success(result, ablated), [False] + [True] * len(ablated), totals=totals,
        ))  # fmt: skip
    return tables


def utility_table(result: SuiteResult) -> Table:
    heads = ["family", "utility\nunder attack", "detected\nas planted", "detected\nline by line",
             "obeyed writes\nflagged", "traced to a record\nthe task read",
             "traced to the\nuser's words"]  # fmt: skip
    coverage, rows = list(result.coverage.values()), []
    for name, keep in _groups(result):
        cov = [c for c in coverage if keep(c.attack, c.family)]
        by = [r for r in result.runs if r.attacker == "bystander" and keep(r.attack, r.family)]
        writes = [r for r in result.runs if r.attacker != "bystander" and keep(r.attack, r.family)]
        rows.append([name, _k(by, lambda r: r.task_done), _k(cov, lambda c: c.detected),
                     _k(cov, lambda c: all(c.alone)), sum(r.flagged_writes for r in writes),
                     sum(r.seed_named_writes for r in writes),
                     sum(r.user_named_writes for r in writes)])  # fmt: skip
    return Table(
        "utility", "Utility under attack and detection per family",
        "utility: the bystander's task done with the payload present and its answer untouched; "
        "detected: spotlighting neutralised every line the attack planted; writes: the approval "
        "requests of obeyed writes in every run, flagged as untrusted or rightly traced",
        heads, rows, totals=_totals(result),
    )  # fmt: skip


def coverage_table(result: SuiteResult) -> Table:
    by_class: dict[str, list[Coverage]] = {}
    for c in result.coverage.values():
        by_class.setdefault(c.cls, []).append(c)
    rows = []
    for cls, group in [*sorted(by_class.items()), ("all", list(result.coverage.values()))]:
        hit = sum(c.detected for c in group)
        rows.append([cls, len(group), hit, len(group) - hit, sum(bool(c.known_gap) for c in group)])
    return Table(
        "coverage", "The neutraliser's coverage per attack class",
        "an attack is detected when every line it planted is neutralised; a miss is no breach "
        "(the gates still hold), and every tuned miss must be declared a known gap",
        ["attack class", "attacks", "detected", "missed", "missed, declared\nknown gaps"],
        rows, totals=1,
    )  # fmt: skip


def tables(result: SuiteResult) -> list[Table]:
    return [runs_table(result), *success_tables(result), utility_table(result),
            coverage_table(result)]  # fmt: skip


def missed(c: Coverage) -> str:
    """Where the neutraliser let an attack's lines through, in words: `missed in log:cache`,
    `missed 2 of 3 lines in log:cache`."""
    points = [p for hit, p in zip(c.parts, c.points, strict=True) if not hit]
    if not points:
        return "now detected"
    lines = f" {len(points)} of {len(c.parts)} lines" if len(c.parts) > 1 else ""
    return f"missed{lines} in {', '.join(dict.fromkeys(points))}"


def known_gaps(result: SuiteResult) -> list[str]:
    """Each declared known gap, in words: what was missed, and why the corpus says it is."""
    return [f"{c.attack} ({c.cls}; {missed(c)}): {c.known_gap}"
            for c in result.coverage.values() if c.known_gap]  # fmt: skip


def held_out_missed(result: SuiteResult) -> list[str]:
    return [f"{c.attack} ({c.cls}; {missed(c)})" for c in result.coverage.values()
            if c.held_out and not c.detected and not c.known_gap]  # fmt: skip


GAPS_NOTE = (
    "attacks the neutraliser is known to miss, each declared in the corpus with the reason; a "
    "known gap is no breach: the approval gate and the output guards must still hold it, and "
    "the cautious attacker obeys exactly these"
)
HELD_OUT_NOTE = (
    "the held-out split is written in wording nobody tuned on and never marked: its misses are "
    "reported, not checked"
)


def verbose_lines(result: SuiteResult) -> list[str]:
    """Every table, then the known gaps and the held-out misses, for `--verbose`."""
    lines: list[str] = []
    for table in tables(result):
        lines += ["", *table.text()]
    for title, note, items in (("Known gaps", GAPS_NOTE, known_gaps(result)),
                               ("Held-out attacks missed", HELD_OUT_NOTE,
                                held_out_missed(result))):  # fmt: skip
        if items:
            lines += ["", f"{title} ({len(items)}):", *_wrap(note)]
            lines += [ln for item in items for ln in _wrap(item, "  - ", "      ")]
    return lines
