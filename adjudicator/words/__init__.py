"""The words: what a lexicon is and how it is built, kept and opened.

Alphabets and their files, word lists and their lines, the importers (plain text, Zyzzyva
text, Zyzzyva word graphs) and import jobs, compiled marisa-trie lexicons, their pins and
their store, sealed copies for the server's workers, the catalogue of known editions, recipes,
the free default lists, input normalisation and spelling words as tiles.

May import: the shared leaves (adjudicator.errors, settings, textcheck, wording) and the
version. Never the record, the judging or the hall.
"""
