"""A mirrored journal's copies when a server starts: proven, brought together, or refused.

Both chains are verified in full and held against every row proven recorded (proof.py), but
a copy `kit open` has just proven, found with the head it proved (proven_copies.py), and two
copies holding the same rows are proven with one walk (alike.py). A
copy only behind the other (or marked lost, or broken where the other is whole) is rebuilt
from the other, and only from a whole one. Two copies whose chains part stop the start
(CopiesDisagree) until the director chooses (`journal resync --keep`). When no copy is whole,
nothing is rebuilt from either: the best one serves, a copy whose chain breaks is set aside
(kept as it was) and replaced by its rows that verify, and the rows missing are recorded as a
rollback, so the hall does not judge until a backup is restored or the loss is accepted. A
fork (a copy that contradicts a signed statement: fork_check.py) is never the source of a
rebuild nor cut: when it is the best copy left, it is recorded as a fork and nothing is judged
until a backup or the other copy is put in its place (never accepted as a loss).
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from adjudicator.record.copies import (
    alike,
    background_check,
    markers,
    mirror_identity,
    proof,
    proven_copies,
    standing,
)
from adjudicator.record.copies.mirror import (
    MIRROR,
    PRIMARY,
    ROLES,
    CopiesDisagree,
    MirroredDatabase,
    disagree_message,
)
from adjudicator.record.copies.resync import cut, locked, rebuild, same_disk, set_aside


def other(role: str) -> str:
    return PRIMARY if role == MIRROR else MIRROR


def on_start(db: MirroredDatabase) -> list[str]:
    """When `serve` (or `hall`) starts: prove the copies and bring them together (see the
    module's docstring). What was done, for the director."""
    notes = []
    if same_disk(db):
        notes.append(
            f"Warning: the journal's mirror {db.paths[MIRROR]} is on the same disk as the journal "
            f"{db.paths[PRIMARY]}: it guards nothing if that disk dies. Put it on another disk "
            "(a USB stick)."
        )
    if not Path(db.paths[MIRROR]).parent.is_dir():
        notes.append(
            f"Warning: the mirror's folder {Path(db.paths[MIRROR]).parent} does not exist (is "
            "the USB stick in?): serving on the journal alone, degraded to one copy."
        )
        return notes
    trouble = None
    with ExitStack() as stack:
        locked(db, stack)
        markers.remove_resynced(db.paths.values())
        verdict, primary, mirror = standing.compare(db.paths[PRIMARY], db.paths[MIRROR])
        if verdict == "disagree":
            raise CopiesDisagree(disagree_message(primary, mirror))
        heads = {PRIMARY: primary, MIRROR: mirror}
        journal_id = primary.journal_id or mirror.journal_id
        proven = proven_copies.take(db.signing_key(), db.paths[PRIMARY])  # by `kit open`
        if journal_id is None:
            return notes  # neither holds a journal yet: both are made alike by the migrations
        about = {journal_id: proof.for_journal(db, journal_id)}
        full = {role: proven is None or not proven.is_head_of(head) for role, head in heads.items()}
        chained: dict = {}  # two copies at one head, both to walk: one walk if they are alike
        if verdict == "same" and all(full.values()) and heads[MIRROR].exists:
            walked, same = alike.walk_and_compare(db.paths[PRIMARY], db.paths[MIRROR])
            chained = {PRIMARY: walked, MIRROR: walked if same else None}
        examined = {
            role: proof.examine(
                role, db.paths[role], about, full=full[role], chained=chained.get(role)
            )
            for role in heads
        }
        stale = _stale(db, verdict, heads, examined)
        source = other(stale) if stale else _best(examined)
        if examined[source].whole:
            if stale is not None:
                notes += _rebuild(db, source, stale, examined)
            markers.remove_all(db.paths.values())
            proof.remember(db, heads[source])
            background_check.stamp_now(db)
        else:
            trouble = examined[source]
            notes += _keep_best(db, source, stale, examined)
    if trouble is not None and trouble.head.exists:
        notes.append(proof.record_missing(db, trouble, examined))
    return notes


def _stale(db, verdict: str, heads: dict, examined: dict) -> str | None:
    """The copy to bring up to date: one behind the other (unless that other is a fork and it
    is whole: then the fork is set aside), one marked lost, or one broken, a fork or lacking
    proven rows beside a whole one."""
    stale = {"first-behind": PRIMARY, "second-behind": MIRROR}.get(verdict)
    if stale is not None:
        ahead = examined[other(stale)]
        return other(stale) if ahead.fork is not None and examined[stale].whole else stale
    if not (heads[PRIMARY].exists and heads[MIRROR].exists):
        return None
    marked = db.markers().signed
    stale = next((role for role in ROLES if db.paths[role] in marked), None)
    if stale is not None:
        return stale
    unwhole = [role for role in ROLES if not examined[role].whole]
    return unwhole[0] if len(unwhole) == 1 else None


def _best(examined: dict[str, proof.Examined]) -> str:
    """The copy to serve when neither is stale: a whole one, else one that is no fork and can
    give most."""
    whole = [role for role in ROLES if examined[role].whole]
    if whole:
        return whole[0]
    return max(
        ROLES,
        key=lambda role: (
            examined[role].head.exists,
            examined[role].fork is None,
            examined[role].usable_to,
        ),
    )


def _rebuild(db, source: str, stale: str, examined: dict) -> list[str]:
    notes = []
    identity = mirror_identity.copy_id(db.paths[stale])  # kept, though the file is set aside
    if examined[stale].fork is not None:
        aside = set_aside(db.paths[stale])
        notes.append(
            f"{examined[stale].describe()[0].upper()}{examined[stale].describe()[1:]}: it was "
            f"set aside as {aside} (kept as evidence, not overwritten)."
        )
    elif examined[stale].broken_at is not None:
        aside = set_aside(db.paths[stale])
        notes.append(
            f"The {stale}'s chain is broken at row {examined[stale].broken_at}: it was set "
            f"aside as {aside} (kept, not overwritten)."
        )
    before = examined[stale].head.describe()
    rebuild(db.paths[source], db.paths[stale], identity)
    notes.append(
        f"The journal's {stale} ({before}) was rebuilt from the {source} "
        f"({examined[source].head.describe()}), whose chain verifies in full."
    )
    return notes


def _keep_best(db, source: str, stale: str | None, examined: dict) -> list[str]:
    """No copy is whole: serve the best as far as it verifies; write nothing from it."""
    notes = []
    best = examined[source]
    if not best.head.exists:
        return notes
    if best.fork is not None:  # never cut, never rebuilt from, never written: kept as it is
        notes.append(f"{best.describe()[0].upper()}{best.describe()[1:]}.")
        stale = stale or other(source)
    elif best.broken_at is not None:
        aside = cut(db.paths[source], best.usable_to)
        notes.append(
            f"The {source}'s chain is broken at row {best.broken_at} ({best.broken}): it was set "
            f"aside as {aside} (kept as it was), and the {source} now holds its rows 1 to "
            f"{best.usable_to}, which verify."
        )
        stale = stale or other(source)
    if stale is not None:  # never written again, never rebuilt from this one
        db.drop(stale, f"{examined[stale].head.describe()}; not rebuilt: {best.describe()}")
    return notes
