"""Reading what `ops-eval redteam` prints: a `--verbose` table by its title, cut into cells at
the columns tabulate's rule marks (so a header stacked over lines and a cell with spaces in it
read whole), and the runs table keyed by attacker and mode."""

from __future__ import annotations

import re


def table(out: str, title: str) -> list[dict[str, str]]:
    """The rows of the table titled `title`, each {header (its lines joined by a space): cell}."""
    lines = out.splitlines()
    start = lines.index(f"{title}:")
    rule = next(i for i in range(start + 1, len(lines)) if re.fullmatch(r"-+( +-+)*", lines[i]))
    first = next(i for i in range(start + 1, rule) if not lines[i].startswith(" "))
    spans = [m.span() for m in re.finditer(r"-+", lines[rule])]

    def cells(line: str) -> list[str]:
        return [line[a:b].strip() for a, b in spans]

    stacked = [cells(line) for line in lines[first:rule]]
    heads = [" ".join(filter(None, parts)) for parts in zip(*stacked, strict=True)]
    rows = []
    for line in lines[rule + 1 :]:
        if not line.strip():
            break
        rows.append(dict(zip(heads, cells(line), strict=True)))
    return rows


def runs_rows(out: str) -> dict[str, dict[str, str]]:
    """The runs table by `attacker mode` (`obedient as shipped`, ..., `total`)."""
    rows = table(out, "Runs per attacker and mode")
    return {f"{r['attacker']} {r['mode']}".strip(): r for r in rows}


def counts(row: dict[str, str]) -> list[str]:
    """Runs, breaches and invalid runs of a runs-table row."""
    return [row["runs"], row["breaches"], row["invalid runs"]]
