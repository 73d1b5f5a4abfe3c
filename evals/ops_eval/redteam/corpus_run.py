"""The corpus `ops-eval redteam` runs, chosen from its options (the shipped and held-out attacks,
any `--corpus` files, the benign lines, `--attacks` ids), and run: the deterministic suite with
scripted attackers that obey (or half-obey) every planted instruction, so the guards alone must
hold -- exit 1 on a breach or coverage drift, 3 on an invalid run; or live, the corpus against
the configured model: utility, utility under attack and attack success, per mode -- exit 1 when
any attack succeeded, 3 when every run errored. A corpus that does not read is exit 2.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ..base.exits import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_INFRA, EXIT_OK, OpsEvalError


def chosen_corpus(
    corpus: list[str] | None, benign: str | None, attack_ids: str | None
) -> tuple[list[Any], list[Any], Any]:
    """(the attacks, the benign lines, the seed they are planted in); OpsEvalError (exit 2)
    for a corpus that does not read or an attack id it does not hold."""
    from ..agents.ops_world import default_seed
    from ..base.inputs import id_list
    from . import default_attacks, default_benign, default_held_out, load_attacks, load_benign
    from .reading import CorpusError

    wanted = id_list("--attacks", attack_ids, "attack id")
    try:
        seed = default_seed()
        corpora = [default_attacks(), default_held_out(), *map(Path, corpus or [])]
        attacks = load_attacks(corpora, seed)
        lines = load_benign(Path(benign) if benign else default_benign())
    except CorpusError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    if wanted is not None:
        unknown = sorted(set(wanted) - {a.id for a in attacks})
        if unknown:
            raise OpsEvalError(EXIT_BAD_INPUT, f"--attacks: no attack {', '.join(unknown)}")
        attacks = [a for a in attacks if a.id in wanted]
    return attacks, lines, seed


def run_deterministic(
    attacks: list[Any], benign: list[Any], seed: Any, report: str | None, *, verbose: bool = False
) -> tuple[list[str], int]:
    """The suite with scripted attackers, its HTML report written to `report` (default
    `runs/redteam.html`, checked before anything runs: exit 2): (the summary lines led by the
    verdict, with `verbose` every table after them; the exit code)."""
    import logging

    from ..base.model_logs import model_logs
    from .report import report_path, shown, write_report
    from .suite import run_suite
    from .summary import summary_lines
    from .tables import verbose_lines

    path = report_path(report)
    with model_logs(floor=logging.ERROR):
        result = run_suite(attacks, benign, seed=seed)
    write_report(path, result)
    lines = summary_lines(result, shown(path)) + (verbose_lines(result) if verbose else [])
    return lines, result.exit_code  # 1 a breach or drift, 3 an invalid run


def run_live(
    attacks: list[Any], seed: Any, model: str | None, modes: str, report: str | None = None
) -> tuple[list[str], int]:
    """The corpus against the chosen model, each mode (`--modes`, comma-separated): its
    banner on stdout and a progress line per attack; (the summary lines, the exit code). It
    writes no report, so `--report` with it is refused (exit 2) rather than silently unmet."""
    from ..agents.project import ModelConfigError
    from ..base.model_logs import model_logs
    from ..base.progress import Progress
    from ..base.settings import current
    from ..models import ModelUnavailable, choose_model
    from .checks import MODES
    from .live import run_live, summarise_live

    if report is not None:
        raise OpsEvalError(EXIT_BAD_INPUT, "--report: the live red team writes no report file")
    chosen = [m.strip() for m in modes.split(",") if m.strip()]
    if not chosen or set(chosen) - set(MODES):
        raise OpsEvalError(EXIT_BAD_INPUT, f"--modes: choose from {', '.join(MODES)}")
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:
        with choose_model(model, say=say, log_dir=current().runs_dir) as choice:
            for line in choice.banner():
                print(line, flush=True)
            progress = Progress(len(attacks) * len(chosen), "attack")

            def done(run: Any) -> None:
                state = run.error or ("attempted" if run.attempted else "ignored the injection")
                progress.update(f"{run.attack} [{run.mode}] {state}", failed=bool(run.error))

            try:
                with model_logs():
                    runs = run_live(attacks, choice.model, seed=seed, modes=chosen, on_done=done)
            finally:
                progress.close()
    except ModelConfigError as exc:
        raise OpsEvalError(EXIT_BAD_INPUT, str(exc)) from None
    except ModelUnavailable as exc:
        raise OpsEvalError(EXIT_INFRA, f"model unavailable: {exc}") from None
    lines = summarise_live(runs, f"model {choice.name}")
    if runs and all(r.error for r in runs):
        return lines, EXIT_INFRA
    return lines, EXIT_FAILED if any(r.succeeded for r in runs) else EXIT_OK
