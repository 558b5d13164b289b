"""A journal on two disks: the laptop's copy and the USB stick's, and what each must prove.

The mirror (`mirror`: one database over two copies), the head last committed kept inside each
copy (`committed_head`) and compared around every chain write (`head_guard`), how two copies
stand (`standing`), what a copy must prove before it is trusted (`proof`), the markers beside a
survivor (`markers`), resync (`resync`), the copies at a start (`at_start`), the background
check of both copies in full (`background_check`), file modes, backups, rows accepted as lost,
one hall judging (`one_hall`), the mirror known by identity (`mirror_identity`), rows another
laptop wrote past this one's (`written_after`) and the takeover statement (`takeover`).

May import: the record's proofs, journal and database, and the shared leaves.
"""
