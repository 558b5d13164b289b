"""The server in front of the kiosk app: gunicorn's worker on a Tornado loop
(`loop_worker`), the bridge from the loop to the WSGI app and its requests, held polls, the
connection caps before TLS, the plain-HTTP trust port, the access log, and the WSGI entry
(`wsgi`).

May import: the kiosk app, the library and the shared leaves.
"""
