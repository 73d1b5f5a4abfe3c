"""`ops-eval`: the single CLI for the evaluation commands.

Exit codes: 0 pass, 1 the thing measured failed, 2 bad input or configuration, 3 infrastructure.
Subcommands import their machinery lazily so that the offline gates start fast.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .base.exits import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INFRA,
    EXIT_OK,
    OpsEvalError,
    console_for_people,
    first_error,
    os_exit_code,
    os_problem,
    unwind_on_signals,
)
from .base.inputs import OneLineParser


def _error(message: object, code: int) -> int:
    """One line on stderr, and the exit code that goes with it."""
    print(f"error: {message}", file=sys.stderr)
    return code


def _cmd_seed(args: argparse.Namespace) -> int:
    from ops_copilot.seed import SeedError, load_seed

    try:
        seed = load_seed(args.seed_dir)
        skills = seed.skills
    except SeedError as exc:
        return _error(exc, EXIT_BAD_INPUT)
    print(
        f"seed ok: {len(seed.services)} services, {len(seed.incidents)} incidents, "
        f"{len(seed.runbooks)} runbooks, {len(seed.logs)} logs, {len(skills)} skills "
        f"(sha256 {seed.digest[:12]})"
    )
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    from ops_copilot.seed import SeedError

    from .validation.adk import AdkCheckError
    from .validation.validator import render, render_warnings, validate

    try:
        report = validate(args.paths)
    except SeedError as exc:
        return _error(exc, EXIT_BAD_INPUT)
    except AdkCheckError as exc:
        return _error(exc, EXIT_INFRA)
    for line in render_warnings(report, args.format):
        print(line, file=sys.stderr)
    for line in render(report, args.format):
        print(line)
    if report.problems:
        kind = "malformed input" if report.malformed else "problems"
        print(
            f"{len(report.problems)} {kind} in {report.files} eval set(s), {report.cases} cases",
            file=sys.stderr,
        )
    else:
        print(f"ok: {report.files} eval set(s), {report.cases} cases agree with the seed")
    return report.exit_code


def _cmd_redteam(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ops_copilot.seed import SeedError, default_seed

    from .base.inputs import id_list
    from .redteam import CorpusError, default_attacks, default_benign, load_attacks, load_benign

    try:
        wanted = id_list("--attacks", args.attacks, "attack id")
    except OpsEvalError as exc:
        return _error(exc, exc.code)
    try:
        seed = default_seed()
        corpora = [default_attacks(), *map(Path, args.corpus or [])]
        attacks = load_attacks(corpora, seed)
        benign = load_benign(Path(args.benign) if args.benign else default_benign())
    except (CorpusError, SeedError) as exc:
        return _error(exc, EXIT_BAD_INPUT)
    if wanted is not None:
        unknown = sorted(set(wanted) - {a.id for a in attacks})
        if unknown:
            return _error(f"--attacks: no attack {', '.join(unknown)}", EXIT_BAD_INPUT)
        attacks = [a for a in attacks if a.id in wanted]
    if args.live:
        return _redteam_live(args, attacks, seed)
    import logging

    from .base.model_logs import model_logs
    from .redteam.suite import run_suite, summarise

    with model_logs(floor=logging.ERROR):
        result = run_suite(attacks, benign, seed=seed)
    for line in summarise(result):
        print(line)
    return result.exit_code  # 1 a breach or coverage drift, 3 an invalid run, 0 neither


def _redteam_live(args: argparse.Namespace, attacks, seed) -> int:
    """The corpus against the configured model: utility, utility under attack, attack rates."""
    unwind_on_signals()
    from ops_copilot.model import ModelConfigError

    from .base.model_logs import model_logs
    from .base.progress import Progress
    from .base.settings import current
    from .models import ModelUnavailable, choose_model
    from .redteam import MODES
    from .redteam.live import run_live, summarise_live

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or set(modes) - set(MODES):
        return _error(f"--modes: choose from {', '.join(MODES)}", EXIT_BAD_INPUT)
    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:
        with choose_model(args.model, say=say, log_dir=current().runs_dir) as choice:
            for line in choice.banner():
                print(line, flush=True)
            progress = Progress(len(attacks) * len(modes), "attack")

            def done(run) -> None:
                state = run.error or ("attempted" if run.attempted else "ignored the injection")
                progress.update(f"{run.attack} [{run.mode}] {state}", failed=bool(run.error))

            try:
                with model_logs():
                    runs = run_live(attacks, choice.model, seed=seed, modes=modes, on_done=done)
            finally:
                progress.close()
    except ModelConfigError as exc:
        return _error(exc, EXIT_BAD_INPUT)
    except ModelUnavailable as exc:
        return _error(f"model unavailable: {exc}", EXIT_INFRA)
    for line in summarise_live(runs, f"model {choice.name}"):
        print(line)
    if runs and all(r.error for r in runs):
        return EXIT_INFRA
    return EXIT_FAILED if any(r.succeeded for r in runs) else EXIT_OK


def _cmd_run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ops_copilot.seed import SeedError

    from .base.inputs import id_list, parse_run_group, parse_shard
    from .commands.run import execute
    from .running.options import RunOptions

    unwind_on_signals()
    try:
        options = RunOptions(
            shard=parse_shard("--shard", args.shard) if args.shard is not None else None,
            run_group=parse_run_group(args.run_group, args.shard),
            cases=id_list("--cases", args.cases),
            repeats=args.repeats,
            concurrency=args.concurrency,
            model=args.model,
            record=Path(args.record) if args.record else None,
            output=Path(args.output) if args.output else None,
            timeout_s=args.timeout,
            verbose=args.verbose,
        )
        if args.set:
            options.set_path = Path(args.set)
        code, _, _ = execute(options)
    except OpsEvalError as exc:
        return _error(exc, exc.code)
    except SeedError as exc:
        return _error(exc, EXIT_BAD_INPUT)
    return code


def _cmd_interactive(args: argparse.Namespace) -> int:
    """`chat` (adk run) or `web` (adk web) with the model chosen as for a live eval."""
    from .commands.interactive import launch

    unwind_on_signals()
    from .base.inputs import tcp_port

    say = lambda line: print(line, file=sys.stderr, flush=True)  # noqa: E731
    try:
        extra = []
        if args.command == "web":
            extra = ["--host", args.host, "--port", str(tcp_port("--port", args.port))]
        return launch(args.command, args.model, extra, say=say)
    except OpsEvalError as exc:
        return _error(exc, exc.code)


def _cmd_report(args: argparse.Namespace) -> int:
    from .commands.report import write_reports

    try:
        text, md_path, html_path = write_reports(args.run, args.markdown, args.html)
    except OpsEvalError as exc:
        return _error(exc, exc.code)
    print(text)
    print(f"markdown: {md_path}\nhtml: {html_path}", file=sys.stderr)
    return EXIT_OK


def _model_option(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--model", help="model (else OPS_AGENT_MODEL, Ollama, or the embedded one)")
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="ops-eval", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    seed = sub.add_parser("seed", help="load and cross-check the seed")
    seed.add_argument(
        "--seed-dir", default=None, help="seed folder (default: OPS_SEED_DIR or seed/)"
    )
    seed.set_defaults(handler=_cmd_seed)

    val = sub.add_parser(
        "validate", help="prove every eval case agrees with ADK, the tools, the seed and policy"
    )
    val.add_argument("paths", nargs="*", help="eval set files or folders (default: evals/)")
    val.add_argument("--format", choices=["text", "github"], default="text")
    val.set_defaults(handler=_cmd_validate)

    red = sub.add_parser(
        "redteam",
        help="deterministic injection suite, obedient and cautious scripted attackers",
    )
    red.add_argument(
        "--corpus",
        action="append",
        metavar="FILE",
        help="more attacks in the evals/redteam format (repeatable)",
    )
    red.add_argument(
        "--benign", metavar="FILE", help="benign corpus (default: evals/redteam/benign.yaml)"
    )
    red.add_argument("--attacks", help="comma-separated attack ids (default: all)")
    red.add_argument(
        "--live", action="store_true",
        help="run the corpus against the configured model (utility, utility under attack, ASR)",
    )  # fmt: skip
    red.add_argument("--model", help="with --live: model (else OPS_AGENT_MODEL, Ollama, embedded)")
    red.add_argument("--modes", default="shipped", help="with --live: shipped,no-spotlight")
    red.set_defaults(handler=_cmd_redteam)

    run = sub.add_parser("run", help="live trajectory eval against a model")
    run.add_argument("--set", help="eval set file (default: evals/ops.evalset.json)")
    run.add_argument("--cases", help="comma-separated eval ids (default: all)")
    run.add_argument("--repeats", type=int, default=1, help="trials per case (pass^k)")
    run.add_argument("--concurrency", type=int, default=1, help="trials in parallel")
    _model_option(run)
    run.add_argument("--record", metavar="FILE", help="record every model request/response")
    run.add_argument("--output", metavar="PATH", help="run record path (default: runs/...)")
    run.add_argument("--timeout", type=float, default=600.0, help="seconds per trial")
    run.add_argument(
        "--verbose", action="store_true", help="full tracebacks of model errors (default: one line)"
    )
    run.add_argument(
        "--shard", metavar="I/N", help="run only shard I of N of the case x repeat trials"
    )
    run.add_argument(
        "--run-group",
        metavar="NAME",
        help="with --shard: a name every shard of one run is given (in CI, the workflow run's "
        "id); merge refuses shards of different groups",
    )
    run.set_defaults(handler=_cmd_run)

    chat = sub.add_parser("chat", help="talk to the ops copilot in the terminal (adk run)")
    _model_option(chat).set_defaults(handler=_cmd_interactive)

    web = _model_option(sub.add_parser("web", help="the ADK dev UI over both agents (adk web)"))
    web.add_argument("--host", default="127.0.0.1")
    web.add_argument("--port", type=int, default=8000)
    web.set_defaults(handler=_cmd_interactive)

    rep = sub.add_parser("report", help="Markdown and HTML report of a run record")
    rep.add_argument("run", nargs="?", help="run record (default: the latest under runs/)")
    rep.add_argument("--markdown", metavar="PATH", help="default: beside the record, .md")
    rep.add_argument("--html", metavar="PATH", help="default: beside the record, .html")
    rep.set_defaults(handler=_cmd_report)

    from .commands.audit import add_parser as add_audit  # argparse only; the checks import lazily

    add_audit(sub)
    from .commands.gate import add_parsers as add_gate

    add_gate(sub)
    from .commands.history import add_parser as add_history

    add_history(sub)
    from .commands.calibrate import add_parser as add_calibrate

    add_calibrate(sub)
    from .commands.ab import add_parser as add_ab

    add_ab(sub)
    from .commands.merge import add_parser as add_merge  # argparse only; merging imports lazily

    add_merge(sub)
    from .commands.mlflow import add_parsers as add_mlflow

    add_mlflow(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from .base.settings import reload
    from .commands.gate import rewrite_argv

    if argv is None:  # the console script, not a caller in this process (tests, other tools)
        console_for_people()
    parser = build_parser()
    args = parser.parse_args(rewrite_argv(list(sys.argv[1:] if argv is None else argv)))
    try:
        reload()  # every command starts from the environment as it is now
    except ValueError as exc:  # pydantic's ValidationError: a variable that is not UTF-8 text
        return _error(
            f"environment: {first_error(exc) if hasattr(exc, 'errors') else exc}", EXIT_BAD_INPUT
        )
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except KeyboardInterrupt:
        return _error("interrupted before the end; nothing was recorded as a result", EXIT_INFRA)
    except OSError as exc:  # a path no reader checked: one line, never a traceback
        return _error(os_problem(exc), os_exit_code(exc))


if __name__ == "__main__":
    raise SystemExit(main())
