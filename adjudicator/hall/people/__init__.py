"""The people who run the hall: staff accounts (the director, word judges), their sessions,
password checks, sign-in attempts counted per address, rate limits, and the web app's session
secret.

May import: the record and the shared leaves.
"""
