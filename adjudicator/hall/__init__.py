"""The hall: the service every challenge goes through, and the people and screens around it.

The hall service (adjudicator.hall.hall: the one path of a challenge), tournaments and the
lexicon pins they were set with, kiosks, pairing codes and the printable sheet, the notes two
laptops of the hall send each other (`hall_peers`, signed with the hall's key); and in
sub-packages by job:
- `network/`: the hall on its network (addresses, the CA and certificates, the mDNS name and
  who else claims it, the recorded URL, per-address connection caps) and the running hall's
  process (the server child, signals, the name for as long as it serves);
- `people/`: staff accounts, sessions, password checks, sign-in attempts, rate limits and the
  web app's session secret;
- `tsh/`: the tournament's own pairings, followed from TSH;
- `kit/`: the takeover kit sealed on the USB stick;
- `director/`: what the director's pages ask: the overview, the hall's status and map, the
  journal's review, integrity, export, bursts and decisions.
The import-linter contract "hall" keeps them in layers: `director` over `kit` over the hall
service and TSH, over `network` and `people`.

May import: the judging, the record, the words and the shared leaves. Never the command line
or the web app.
"""
