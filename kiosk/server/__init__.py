"""The server in front of the kiosk app: gunicorn's worker on a Tornado loop
(`loop_worker`), the bridge from the loop to the WSGI app and its requests, held polls, the
connections' admission (room kept for paired kiosks and the director: `admission`, with the
`credentials` a head shows) and the server's cap on them, the plain-HTTP trust port, the
access log, and the WSGI entry (`wsgi`).

May import: the kiosk app, the library and the shared leaves.
"""
