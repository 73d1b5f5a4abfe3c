"""`ops-eval report`: a run record's verdict, and its Markdown and HTML reports written beside
the record or where asked (`outputs.report.written`), with the mutation ledger's line for its
eval set (`mutation.mutation_line`)."""

from __future__ import annotations

import argparse
from typing import Any

from ..base import EXIT_OK


def add_parser(subparsers: Any) -> None:
    rep = subparsers.add_parser("report", help="Markdown and HTML report of a run record")
    rep.add_argument("run", nargs="?", help="run record path or run id (default: the newest)")
    rep.add_argument("--markdown", metavar="PATH", help="default: beside the record, .md")
    rep.add_argument("--html", metavar="PATH", help="default: beside the record, .html")
    rep.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from ..mutation import mutation_line
    from ..outputs.report import verdict_line, write_reports

    record, md_path, html_path = write_reports(args.run, args.markdown, args.html, mutation_line)
    print(f"{verdict_line(record)}\nreport: {html_path} (Markdown: {md_path})")
    return EXIT_OK
