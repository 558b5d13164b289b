/* The kiosk's game fields (round, table, challenger), for the rules that count each player's
 * unsuccessful challenges in a game: shown when the rule needs them, round and table kept on
 * this screen between challenges, the challenger asked each time; shown too, to fill in or not,
 * where a free challenge may be used (`asks_challenger`: NSA VI.C). And the final-play box,
 * shown where the rulebook makes it matter (school rule 12), cleared after each verdict.
 */
(function (K) {
  "use strict";

  var $ = K.$;
  var S = K.state;
  var FIELDS = K.GAME_FIELDS;
  var GAME_KEY = "adjudicator.game." + K.root.dataset.kiosk;  // round and table, kept here

  /* `needed`: the rule counts each player's challenges (all three fields asked for);
   * `asked`: a free challenge may be used here (NSA VI.C, or a grant the director gave), so
   * the same fields are shown, to fill in or not. */
  function showGameDetails(needed, asked) {
    var appearing = needed && !S.needsGame;
    S.needsGame = needed;
    if (asked !== undefined) { S.asksChallenger = Boolean(asked); }
    var shown = needed || S.asksChallenger;
    $("game-details").hidden = !shown || Boolean(S.tableGame);   // TSH's game: names to tap
    $("game-why-count").hidden = !needed;
    $("game-why-free").hidden = needed;
    if (appearing && K.root.dataset.state === "idle" && !S.words.length && !K.input.value) {
      K.focusFirstEmpty();
    }
  }

  function gameInput(name) { return $("game-" + name); }

  function showFinalPlay(asked) {
    S.asksFinalPlay = asked;
    $("final-play-row").hidden = !asked;
    if (!asked) { $("final-play").checked = false; }
  }

  /* {final_play: true} when the box is shown and ticked, else nothing to send. */
  function finalPlay() {
    return S.asksFinalPlay && $("final-play").checked ? { final_play: true } : {};
  }

  function clearFinalPlay() { $("final-play").checked = false; }

  /* Round and table are remembered between challenges on this screen (a tablet stays at one
   * table for a round); the challenger is asked each time. A kiosk seated at a table by the
   * director keeps that table (the field is read-only). */
  function restoreGame() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(GAME_KEY) || "{}");
      gameInput("round").value = saved.round || "";
      var table = gameInput("table");
      table.value = table.dataset.kioskTable || saved.table || "";
    } catch (ignored) { /* no storage: the fields start empty */ }
  }

  function rememberGame() {
    try {
      window.localStorage.setItem(GAME_KEY, JSON.stringify({
        round: gameInput("round").value.trim(), table: gameInput("table").value.trim(),
      }));
    } catch (ignored) { /* no storage: nothing remembered */ }
  }

  var FIELD_NAMES = { round: T("round"), table: T("table"), challenger: T("challenger") };

  /* The game fields to send, or null (and a hint) if one is missing; those filled in where
   * they are asked for a free challenge only. */
  function gameDetails() {
    if (!S.needsGame) {
      var given = {};
      if (S.asksChallenger) {
        FIELDS.forEach(function (name) {
          var value = gameInput(name).value.trim();
          if (value) { given[name] = value; }
        });
      }
      return given;
    }
    var details = {};
    var missing = FIELDS.filter(function (name) {
      details[name] = gameInput(name).value.trim();
      return !details[name];
    });
    if (missing.length) {
      K.showHint(T("Give the {missing} first: this rule counts each player's unsuccessful " +
                   "challenges in a game.", { missing: missing.map(function (name) { return FIELD_NAMES[name]; }).join(", ") }));
      gameInput(missing[0]).focus();
      return null;
    }
    return details;
  }

  /* On the verdict screen: the game and challenger the journal recorded it for. */
  function showVerdictGame(entry) {
    var shown = Boolean(entry.round && entry.table && entry.challenger);
    var players = Array.isArray(entry.players) && entry.players.length === 2 ? entry.players : null;
    $("verdict-game-row").hidden = !shown;
    K.setText("verdict-game", !shown ? "" : players
      ? T("Round {round} · Table {table} · {first} v {second} · challenger {challenger}",
          { round: entry.round, table: entry.table, first: players[0], second: players[1],
            challenger: entry.challenger })
      : T("Round {round} · Table {table} · challenger {challenger}",
          { round: entry.round, table: entry.table, challenger: entry.challenger }));
  }

  function onGameKeyDown(event) {
    K.touched();
    if (event.key !== "Enter") { return; }
    event.preventDefault();   // Enter moves on to the next box; JUDGE judges
    var next = FIELDS.indexOf(event.target.id.replace("game-", "")) + 1;
    (next < FIELDS.length ? gameInput(FIELDS[next]) : K.input).focus();
  }

  function wireGame() {
    $("game-details").addEventListener("keydown", onGameKeyDown);
    $("game-details").addEventListener("input", K.touched);
  }

  K.expose(showGameDetails, showFinalPlay, finalPlay, clearFinalPlay, gameInput, restoreGame,
    rememberGame, gameDetails, showVerdictGame, wireGame);
})(window.Kiosk);
