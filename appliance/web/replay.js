// Steps through a replay in place: the board, the position's panel, the
// move list's current move, the graph's cursor and the URL's ?ply= follow
// the keys (← → Home End), the buttons, the move list and the graph.
// Without this script every link loads the position from the server.
(function () {
  var dataEl = document.getElementById("replay-data");
  var board = document.getElementById("board");
  if (!dataEl || !board) { return; }
  var data;
  try { data = JSON.parse(dataEl.textContent); } catch (e) { return; }
  var plies = data.plies || [];
  if (!plies.length) { return; }
  var last = plies.length - 1;
  var cur = parseInt(board.getAttribute("data-ply"), 10) || 0;
  var infos = document.querySelectorAll(".ply-info");
  var moves = document.querySelectorAll("#moves a[data-ply]");
  var lastMark = board.querySelector(".m-last");
  var bestMark = board.querySelector(".m-best");
  var cursor = document.getElementById("g-cur");
  var text = document.getElementById("ply-text");
  var discs = [];
  // The board is internal/boardview's: a disc per open square, by data-sq.
  for (var sq = 0; sq < data.size * data.size; sq++) { discs.push(board.querySelector('[data-sq="' + sq + '"]')); }

  function place(el, sq, cls) {
    if (!el) { return; }
    if (sq < 0) { el.setAttribute("visibility", "hidden"); return; }
    el.setAttribute("cx", String(data.margin + (sq % data.size) * data.cell + data.cell / 2));
    el.setAttribute("cy", String(data.margin + Math.floor(sq / data.size) * data.cell + data.cell / 2));
    el.removeAttribute("visibility");
    if (cls !== null) { el.setAttribute("class", cls); }
  }

  function show(k) {
    cur = Math.max(0, Math.min(last, k));
    var p = plies[cur];
    for (var i = 0; i < discs.length; i++) {
      if (!discs[i]) { continue; }
      var c = p.b.charAt(i);
      discs[i].setAttribute("class", c === "1" ? "disc b" : c === "2" ? "disc w" : "disc");
    }
    place(lastMark, p.l, "m-last c-" + (p.c || ""));
    place(bestMark, p.k, null);
    for (var j = 0; j < infos.length; j++) {
      infos[j].hidden = infos[j].getAttribute("data-ply") !== String(cur);
    }
    var side = document.querySelector(".replay-side");
    if (cur === 0 && side) { side.scrollTop = 0; }
    for (var m = 0; m < moves.length; m++) {
      var on = moves[m].getAttribute("data-ply") === String(cur);
      moves[m].classList.toggle("cur", on);
      if (on && moves[m].scrollIntoView) { moves[m].scrollIntoView({ block: "nearest" }); }
    }
    if (cursor) { cursor.setAttribute("x1", String(p.x)); cursor.setAttribute("x2", String(p.x)); }
    board.setAttribute("data-ply", String(cur));
    board.setAttribute("aria-label", "the board after move " + cur);
    if (text) { text.textContent = "after move " + cur + " of " + last; }
    if (window.history && history.replaceState) { history.replaceState(null, "", "?ply=" + cur); }
  }

  var steps = { first: function () { return 0; }, prev: function () { return cur - 1; },
    next: function () { return cur + 1; }, last: function () { return last; } };
  document.addEventListener("click", function (e) {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) { return; }
    var t = e.target;
    while (t && t !== document && !(t.getAttribute && (t.getAttribute("data-step") || t.getAttribute("data-ply")))) { t = t.parentNode; }
    if (!t || t === document) { return; }
    var step = t.getAttribute("data-step");
    if (step && steps[step]) { e.preventDefault(); show(steps[step]()); return; }
    if (t === board) { return; }
    var n = parseInt(t.getAttribute("data-ply"), 10);
    if (!isNaN(n)) { e.preventDefault(); show(n); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    var tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") { return; }
    var to = null;
    switch (e.key) {
      case "ArrowLeft": to = cur - 1; break;
      case "ArrowRight": to = cur + 1; break;
      case "Home": to = 0; break;
      case "End": to = last; break;
    }
    if (to !== null) { e.preventDefault(); show(to); }
  });
  document.documentElement.classList.add("js");
})();
