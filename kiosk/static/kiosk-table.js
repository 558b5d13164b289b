/* The kiosk's game as TSH pairs it (GET /api/v1/table): "Round R · Table T" and the two
 * players, the first player first; the challenger is chosen with one tap, and the challenge
 * then names that player (by TSH number) and the round shown. With no game at the table this
 * round, the page says so, and the game is typed as before (kiosk-game.js) where the rule asks
 * for it. Asked only while the status says the kiosk has a table and its tournament is linked
 * to TSH (a kiosk of an unlinked tournament never asks: no 404 on every poll); then every 5 s
 * and after each verdict, so a new round reaches the kiosk by itself.
 */
(function (K) {
  "use strict";

  var $ = K.$;
  var S = K.state;
  var POLL_MS = 5000;
  var shownKey = "";
  var pollTimer = null;
  var following = false;   // the status says: a table of its own, in a tournament linked to TSH
  var noGame = null;       // the last "no game here" answer, said again when the rule changes

  var asking = null;   // the question in flight: one at a time, so polls never multiply

  /* Each status answer: start asking for the game where there is one to ask for, stop where
   * there is none (the link taken away, the kiosk moved off its table). */
  function followTable(status) {
    var wanted = Boolean(status.table && status.tournament && status.tournament.tsh_linked);
    if (wanted !== following) {
      following = wanted;
      if (wanted) {
        refreshTable();
      } else {
        clearTimeout(pollTimer);
        showNoGame({});
      }
    } else if (noGame) {
      sayNoGame();   // the rule may have changed: the typed fields come or go
    }
  }

  function refreshTable() {
    clearTimeout(pollTimer);
    if (!following) { return Promise.resolve(); }
    if (asking) return asking;   // its answer schedules the next one
    asking = K.fetchWithTimeout("/api/v1/table", { headers: { Accept: "application/json" } })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!following) { return; }   // unlinked or unseated meanwhile: the status said so
          if (response.ok && body && Array.isArray(body.players)) {
            showGame(body);
          } else if (response.status === 404) {
            following = following && Boolean(body && body.linked);   // the status says again
            showNoGame(body || {});
          }
        });
      })
      .catch(function () { /* the status poll says when the server is out of reach */ })
      .finally(function () {
        asking = null;
        clearTimeout(pollTimer);
        if (following) { pollTimer = setTimeout(refreshTable, POLL_MS); }
      });
    return asking;
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
    $("table-game").addEventListener("click", choose);   // asked for once the status says
  }

  K.refreshTable = refreshTable;
  K.followTable = followTable;
  K.challengeGame = challengeGame;
  K.resetChallenger = resetChallenger;
  K.wireTable = wireTable;
})(window.Kiosk);
