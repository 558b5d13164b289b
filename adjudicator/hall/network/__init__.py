"""The hall on its network: addresses, the hall's CA and TLS certificates, the mDNS name and
the devices that claim it, the notes another laptop of the hall sends (`peers`), the URL
recorded for pairing links, per-address connection caps, and
`adjudicator hall`'s process (the server child, signals, the name for as long as it serves).

May import: the shared leaves only. Never the judging, the record, the words, or the rest of
the hall (import-linter contract "hall-network").
"""
