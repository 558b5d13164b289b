/* The kiosk's game as TSH pairs it (GET /api/v1/table): "Round R · Table T" and the two
 * players, the first player first; the challenger is chosen with one tap, and the challenge
 * then names that player (by TSH number) and the round shown. With no game at the table this
 * round, the page says so and the game is typed as before (kiosk-game.js). The status poll
 * says which version of the game the server has (`table_game`, kiosk-status.js): the game is
 * asked for when that is not the one shown (so a new round reaches the kiosk by itself), and
 * after each verdict, with the ETag of the answer shown (a 304 keeps it). A kiosk with no table,
 * or of a tournament not linked to TSH, has no version: it asks nothing.
 */
(function (K) {
  "use strict";

  var $ = K.$;
  var S = K.state;
  var shownKey = "";
  var shownTag = "";    // the ETag of the answer shown
  var shownFor;         // the status's table_game that answer is for (undefined: none yet)
  var noGame = null;    // the last "no game here" answer, said again when the rule changes

  var asking = null;   // the question in flight: one at a time, so questions never multiply

  /* The version of the game the server has, as the last status gave it (null: none). */
  function version() {
    return S.status ? S.status.table_game || null : undefined;
  }

  function refreshTable() {
    if (asking) return asking;   // its answer is the one wanted
    var wanted = version();
    if (!wanted) {   // no table, or no TSH link: there is nothing to ask
      if (wanted === null && shownFor !== null) { shownFor = null; showNoGame({}); }
      return Promise.resolve();
    }
    var options = { headers: { Accept: "application/json" } };
    if (shownTag) { options.headers["If-None-Match"] = shownTag; }
    asking = K.fetchWithTimeout("/api/v1/table", options)
      .then(function (response) {
        if (response.status === 304) {
          shownFor = wanted;
          return;
        }
        return response.json().then(function (body) {
          if (response.ok && body && Array.isArray(body.players)) {
            showGame(body);
          } else if (response.status === 404) {
            showNoGame(body || {});
          } else {
            return;
          }
          shownTag = response.headers.get("ETag") || "";
          shownFor = wanted;
        });
      })
      .catch(function () { /* the status poll says when the server is out of reach */ })
      .finally(function () { asking = null; });
    return asking;
  }

  /* After each status: ask for the game if the server has another version than the one shown. */
  function checkTable() {
    if (version() !== shownFor) {
      refreshTable();
    } else if (noGame) {
      sayNoGame();   // the rule may have changed: the typed fields come or go
    }
  }

  function showGame(game) {
    var key = JSON.stringify([game.division, game.round, game.table, game.players]);
    if (key !== shownKey) {   // a new game at this table: nobody has challenged in it yet
      shownKey = key;
      S.challenger = null;
    }
    S.tableGame = game;
    K.setText("table-game-title", T("Round {round} · Table {table}",
                                    { round: game.round, table: game.table }));
    game.players.slice(0, 2).forEach(function (player, index) {
      var button = $("table-player-" + (index + 1));
      button.dataset.id = String(player.id);
      K.setText("table-player-" + (index + 1) + "-name", player.name);
      $("table-player-" + (index + 1) + "-first").hidden = !player.first;
      button.setAttribute("aria-pressed", String(S.challenger === player.id));
    });
    $("table-game").hidden = false;
    noGame = null;
    $("table-none").hidden = true;
    K.showGameDetails(S.needsGame);   // the typed fields give way to the names
  }

  function showNoGame(body) {
    var hadGame = Boolean(S.tableGame);
    S.tableGame = null;
    S.challenger = null;
    shownKey = "";
    $("table-game").hidden = true;
    noGame = body.linked && body.shown_error ? body : null;
    sayNoGame();
    if (hadGame) { K.showGameDetails(S.needsGame); }
  }

  /* "No game at table T this round.", and where the rule asks for the game (the boxes are
   * shown), how to give it. */
  function sayNoGame() {
    K.setText("table-none", !noGame ? "" : S.needsGame
      ? noGame.shown_error + " " + T("Type the round and table as usual.") : noGame.shown_error);
    $("table-none").hidden = !noGame;
  }

  function choose(event) {
    var button = event.target.closest(".player-button");
    if (!button || S.judging || !S.tableGame) { return; }
    S.challenger = Number(button.dataset.id);
    ["table-player-1", "table-player-2"].forEach(function (id) {
      $(id).setAttribute("aria-pressed", String($(id) === button));
    });
    K.touched();
    K.showHint("");
    K.input.focus();
  }

  /* The game to send with a challenge: the round shown and the challenger tapped, or null
   * (and a hint) if nobody is tapped; the typed fields when TSH has no game here. */
  function challengeGame() {
    if (!S.tableGame) { return K.gameDetails(); }
    if (S.challenger === null || S.challenger === undefined) {
      K.showHint(T("Who challenges? Tap their name."));
      $("table-player-1").focus();
      return null;
    }
    return { round: String(S.tableGame.round), challenger: String(S.challenger) };
  }

  /* After a verdict (or clear_seconds untouched): the next challenger is chosen afresh, and
   * the round may have moved on. */
  function resetChallenger() {
    S.challenger = null;
    ["table-player-1", "table-player-2"].forEach(function (id) {
      $(id).setAttribute("aria-pressed", "false");
    });
    refreshTable();
  }

  function wireTable() {
    $("table-game").addEventListener("click", choose);
  }

  K.expose(refreshTable, checkTable, challengeGame, resetChallenger, wireTable);
})(window.Kiosk);
