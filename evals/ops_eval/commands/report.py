"""`ops-eval report`: a run record's Markdown and HTML reports, beside the record or where
asked (`outputs.report.written`), with the mutation ledger's line for its eval set
(`mutation.mutation_line`)."""

from __future__ import annotations

import argparse
import sys
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
    from ..outputs.report import write_reports

    text, md_path, html_path = write_reports(args.run, args.markdown, args.html, mutation_line)
    print(text)
    print(f"markdown: {md_path}\nhtml: {html_path}", file=sys.stderr)
    return EXIT_OK
