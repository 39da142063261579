"""`rulesrun --help` names every subcommand the command line dispatches, and every document it
points to exists."""
import re

from rulesrun.interpreter.cli import main as cli


def test_help_lists_every_subcommand_and_only_existing_docs(capsys, root):
    try:
        cli.main(["--help"])
    except SystemExit:
        pass
    out = capsys.readouterr().out
    for name in cli.SUBCOMMANDS:
        if name != "play":      # playing is `rulesrun GAME`; `play` is its other spelling
            assert re.search(rf"^\s+rulesrun {name}\b", out, re.M), f"'rulesrun {name}' missing from --help"
    cited = re.findall(r"docs/[\w/.-]+\.md", out)
    assert cited, "the help points to the docs"
    missing = [c for c in cited if not (root / c).is_file()]
    assert not missing, f"--help cites documents that do not exist: {missing}"


def test_every_doc_the_code_cites_exists(root):
    """Messages and docstrings send people to docs/...; each of those files must be there."""
    missing = set()
    for folder in ("dsl", "interpreter"):
        for path in (root / folder).rglob("*.py"):
            for cited in re.findall(r"docs/[\w/.-]+\.md", path.read_text(encoding="utf-8")):
                if not (root / cited).is_file():
                    missing.add(f"{path.relative_to(root)}: {cited}")
    assert not missing, "\n".join(sorted(missing))
