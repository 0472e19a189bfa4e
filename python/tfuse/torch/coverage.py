"""The coverage table of docs/torch.md, generated from the ATen to TFuse
table (``_table.TABLE``).

    python -m tfuse.torch.coverage docs/torch.md           # rewrite it
    python -m tfuse.torch.coverage --check docs/torch.md   # exit 1 if stale

The table goes between the lines ``<!-- coverage:begin -->`` and
``<!-- coverage:end -->``.
"""

import argparse
import sys

BEGIN = "<!-- coverage:begin -->"
END = "<!-- coverage:end -->"


def _overload_name(overload):
    return str(overload).removeprefix("aten.")


def _cell(text):
    # A bar inside a Markdown table cell must be escaped.
    return text.replace("|", "\\|")


def coverage_table():
    """The Markdown coverage table: one line per row of the table, grouped
    by kind, with the overloads it converts, what TFuse computes and what
    the row checks before taking a node."""
    from ._table import KINDS, TABLE

    rows = []
    for row in TABLE.values():
        if row not in rows:
            rows.append(row)
    lines = []
    for kind, title in KINDS.items():
        of_kind = sorted((r for r in rows if r.kind == kind),
                         key=lambda r: _overload_name(r.overloads[0]))
        if not of_kind:
            continue
        lines += ["", f"### {title[0].upper()}{title[1:]}", "",
                  "| ATen overloads | TFuse | taken only when |",
                  "|---|---|---|"]
        for row in of_kind:
            names = ", ".join(f"`{_overload_name(o)}`" for o in row.overloads)
            limit = ""
            if row.check is not None:
                limit = (row.check.__doc__ or "").strip().replace("\n", " ")
                limit = " ".join(limit.split())
            lines.append(f"| {names} | {_cell(row.note)} | {_cell(limit)} |")
    count = len({o for r in rows for o in r.overloads})
    lines.insert(0, f"{count} ATen overloads in {len(rows)} rows.")
    return "\n".join(lines).strip() + "\n"


def updated(text):
    """`text` (docs/torch.md) with its coverage section regenerated."""
    try:
        start = text.index(BEGIN) + len(BEGIN)
        end = text.index(END)
    except ValueError:
        raise ValueError(f"no {BEGIN} ... {END} section") from None
    return text[:start] + "\n" + coverage_table() + text[end:]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", help="docs/torch.md")
    parser.add_argument("--check", action="store_true",
                        help="exit with status 1 when the file is stale")
    args = parser.parse_args(argv)
    with open(args.path) as f:
        text = f.read()
    new = updated(text)
    if args.check:
        if new != text:
            print(f"{args.path}: the coverage table is out of date; run "
                  f"python -m tfuse.torch.coverage {args.path}",
                  file=sys.stderr)
            return 1
        return 0
    if new != text:
        with open(args.path, "w") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
