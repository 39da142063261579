"""The rulebook's blocks (interpreter/authoring/rulebook.py) as Markdown or as a standalone HTML page."""
from __future__ import annotations

import html
import re

from rulesrun.interpreter.authoring.english import Step


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_steps(steps: list, pad: str = "") -> list:
    out = []
    for n, s in enumerate(steps, 1):
        lead = f"{n}. "
        inner = pad + " " * len(lead)
        branches = s.sub if (not s.text and s.sub) else [s]     # if / otherwise: one numbered step
        for i, b in enumerate(branches):
            out.append((pad + lead if i == 0 else inner) + b.text)
            out.extend(_md_notes(b.notes, inner))
            out.extend(_md_steps(b.sub, inner))
        if not s.text and s.sub:
            out.extend(_md_notes(s.notes, inner))
    return out


def _md_notes(notes: list, pad: str) -> list:
    return [f"{pad}*{_md_escape(t)}*" for t in notes]


def _md_escape(text: str) -> str:
    return text.replace("*", "\\*")


def to_markdown(blocks: list) -> str:
    out: list = []
    for b in blocks:
        kind = b[0]
        if kind == "h":
            out += [f"{'#' * b[1]} {b[2]}", ""]
        elif kind == "p":
            out += [b[1], ""]
        elif kind == "note":
            out += [f"> *{_md_escape(b[1])}*", ""]
        elif kind == "table":
            headers, rows = b[1], b[2]
            out.append("| " + " | ".join(_md_cell(h) for h in headers) + " |")
            out.append("| " + " | ".join("---" for _ in headers) + " |")
            out += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
            out.append("")
        elif kind == "list":
            out += [f"- {t}" for t in b[1]] + [""]
        elif kind == "steps":
            out += _md_steps(b[1]) + [""]
        elif kind == "diagram":
            out += ["The flow of play as a diagram (Graphviz DOT; `rulesrun doc --diagram -o FILE` also writes "
                    "the SVG):", "", "```dot", b[1].rstrip(), "```", ""]
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


# ── HTML ────────────────────────────────────────────────────────────────────
_CSS = """
body { font: 16px/1.5 Georgia, 'DejaVu Serif', serif; color: #222; background: #fdfbf6; margin: 0; }
main { max-width: 52em; margin: 0 auto; padding: 2em 1.5em 4em; }
h1 { font-size: 2.4em; margin: 0 0 .2em; border-bottom: 3px double #8a6d3b; }
h2 { color: #5b3f12; border-bottom: 1px solid #d8c9a8; margin-top: 2em; }
h3 { color: #5b3f12; margin-top: 1.6em; }
h4 { color: #6d5530; }
table { border-collapse: collapse; margin: .8em 0; font-size: .92em; }
th, td { border: 1px solid #d8c9a8; padding: .25em .6em; text-align: left; vertical-align: top; }
th { background: #efe6d2; }
tr:nth-child(even) td { background: #f7f2e7; }
blockquote, .note { color: #6b5d45; font-style: italic; margin: .4em 0 .8em 1em; }
ol { padding-left: 1.8em; } ol ol { list-style: lower-alpha; } ol ol ol { list-style: lower-roman; }
li { margin: .2em 0; }
li > .note { margin: 0; font-size: .92em; }
.branch { margin-top: .3em; }
code { font-family: 'DejaVu Sans Mono', monospace; font-size: .9em; background: #efe6d2; padding: 0 .2em; }
.diagram { overflow-x: auto; border: 1px solid #d8c9a8; background: white; padding: .5em; }
.diagram svg { max-width: 100%; height: auto; }
nav { font-size: .9em; margin: 1em 0; } nav a { margin-right: 1em; }
a { color: #7a4b00; }
"""


def inline(text: str) -> str:
    """The rulebook's inline Markdown (**bold**, *italic*, `code`, [link](#anchor)) as HTML."""
    t = html.escape(str(text), quote=False)
    t = re.sub(r"`([^`]+)`", r"<code>\1</code>", t)
    t = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", t)
    t = re.sub(r"(?<![\w\\])\*(?!\s)(.+?)(?<!\s)\*", r"<em>\1</em>", t)
    t = re.sub(r"\[([^\]]+)\]\((#[\w-]+)\)", r'<a href="\2">\1</a>', t)
    return t.replace("\\*", "*")


def _html_steps(steps: list) -> list:
    out = ["<ol>"]
    for s in steps:
        out.append("<li>")
        branches = s.sub if (not s.text and s.sub) else [s]
        for i, b in enumerate(branches):
            cls = ' class="branch"' if i else ""
            out.append(f"<div{cls}>{inline(b.text)}</div>")
            out += [f'<div class="note">{inline(n)}</div>' for n in b.notes]
            if b.sub:
                out += _html_steps(b.sub)
        if not s.text and s.sub:
            out += [f'<div class="note">{inline(n)}</div>' for n in s.notes]
        out.append("</li>")
    out.append("</ol>")
    return out


def to_html(blocks: list) -> str:
    title = next((b[2] for b in blocks if b[0] == "h" and b[1] == 1), "Rulebook")
    body: list = []
    sections = [(b[2], b[3]) for b in blocks if b[0] == "h" and b[1] == 2]
    for b in blocks:
        kind = b[0]
        if kind == "h":
            body.append(f'<h{b[1]} id="{html.escape(b[3])}">{inline(b[2])}</h{b[1]}>')
            if b[1] == 1 and sections:
                body.append("<nav>" + "".join(f'<a href="#{html.escape(a)}">{html.escape(t)}</a>'
                                              for t, a in sections) + "</nav>")
        elif kind == "p":
            body.append(f"<p>{inline(b[1])}</p>")
        elif kind == "note":
            body.append(f"<blockquote>{inline(b[1])}</blockquote>")
        elif kind == "table":
            body.append("<table><thead><tr>" + "".join(f"<th>{inline(h)}</th>" for h in b[1]) + "</tr></thead><tbody>")
            body += ["<tr>" + "".join(f"<td>{inline(c)}</td>" for c in row) + "</tr>" for row in b[2]]
            body.append("</tbody></table>")
        elif kind == "list":
            body.append("<ul>" + "".join(f"<li>{inline(t)}</li>" for t in b[1]) + "</ul>")
        elif kind == "steps":
            body += _html_steps(b[1])
        elif kind == "diagram":
            svg = b[2]
            if svg:
                svg = re.sub(r"^.*?(<svg)", r"\1", svg, flags=re.S)     # drop the XML prologue
                body.append(f'<figure class="diagram">{svg}<figcaption>The flow of play.</figcaption></figure>')
            else:
                body.append("<p>The flow of play as Graphviz DOT (install Graphviz for a picture):</p>")
                body.append(f"<pre>{html.escape(b[1])}</pre>")
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{html.escape(title)}"
            f" — rulebook</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<main>\n" + "\n".join(body)
            + "\n</main>\n</body>\n</html>\n")


__all__ = ["to_markdown", "to_html", "inline", "Step"]
