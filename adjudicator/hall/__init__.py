"""The hall: the service every challenge goes through, and the people and screens around it.

The hall service (adjudicator.hall.hall: the one path of a challenge), tournaments and the
lexicon pins they were set with, kiosks, staff accounts, sessions, password checks, attempts
and rate limits, bursts, the hall's status and overview, and the director's review, integrity
and export queries; the hall on its network (addresses, certificates, mDNS name, recorded URL)
and the running hall's process supervision (hall_process: the server child, signals, the name
for as long as it serves).

May import: the judging, the record, the words and the shared leaves. Never the command line
or the web app.
"""
