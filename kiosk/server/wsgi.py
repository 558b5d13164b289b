"""The WSGI entry point gunicorn loads: `kiosk.server.wsgi:app`. Each server process (a gunicorn
worker imports this after it forks) also follows the tournaments' TSH links, off the request path
(adjudicator/hall/tsh/follow.py: one process reads each change)."""

from adjudicator.hall.tsh import follow
from kiosk import create_app

app = create_app()
follow.start_in_this_process()
