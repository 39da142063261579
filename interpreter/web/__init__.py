"""The web table: ``rulesrun serve`` (needs the ``web`` extra: Starlette and uvicorn).

    command.py   the command line, the printed links, running uvicorn
    server.py    routes and WebSockets, bots' pacing, --watch
    table.py     one table: seats and tokens, moves, rematch, reload, save
    views.py     what one seat or a spectator receives, built from state.observation(p)
    static/      the page: plain HTML, CSS and JavaScript, no build step
"""
