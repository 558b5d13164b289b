"""The tournament's own pairings: TSH's rounds, boards and players, read into the hall.

TSH (tsh.poslfit.com, John Chew's tournament software) pairs each round and publishes the event
as `tourney.js`; its event folder holds `config.tsh` and one `.t` file per division. Here:
the readers of those files (`tourney_js`, `config_tsh`, `tfile`, `event_folder`), the event
they make and its games (`event`), where a source is read from (`source`), the link of a
tournament to its TSH event (`links`), the games it stores and what the hall asks of them
(`games`), the seat of a challenge's game (`seating`), and the one process that follows the
source (`follow`).

May import: the hall's tournaments, the judging, the record, the words and the shared leaves;
never the kit or the director's queries above it (import-linter contract "hall").
"""
