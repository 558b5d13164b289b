"""The hall's kit: what a second laptop needs to take the hall over, sealed on the USB stick.

The kit holds the receipt key, the CA's key and certificate, the server certificate and key,
the session secret, the hall's name and port (sealed), and the compiled lexicons the
tournaments use (in the clear: they are not secret, and are checked against each tournament's
pin on arrival). Here: the seal itself, authenticated encryption under a key from the
director's passphrase by Argon2id, and a kit key pair for what the running hall adds later
(`sealing`); the kit's files on the stick (`kit_files`); its header, signed with the hall's
key (`kit_header`), and its manifest, which makes it one signed whole (`manifest`); what the
kit holds and how it goes back into a data home (`contents`); `adjudicator kit seal` (`seal`);
the running hall keeping the kit current without the passphrase, and saying whether the stick
holds a current kit (`refresh`); the proof of the stick's journal copy (`stick_copy`);
`adjudicator kit open` on the second laptop (`kit_open`), and a drill on a spare one
(`drill`).

May import: the hall's network and people, its tournaments and pins, the record, the words and
the shared leaves; never the director's queries above it (import-linter contract "hall").
"""
