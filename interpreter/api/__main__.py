"""``python -m rulesrun``: the same as the ``rulesrun`` command."""
from rulesrun.interpreter.cli.main import main

raise SystemExit(main())
