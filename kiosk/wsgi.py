"""The WSGI entry point gunicorn loads: `kiosk.wsgi:app`."""

from kiosk import create_app

app = create_app()
