// Steps through a replay: shows one server-rendered frame at a time.
// Without this script every frame is shown in order.
(function () {
  var frames = document.querySelectorAll("#frames .frame");
  var controls = document.querySelector(".replay-controls");
  var ply = document.getElementById("ply");
  var text = document.getElementById("ply-text");
  if (!frames.length || !controls || !ply) { return; }
  var cur = 0;
  function show(n) {
    cur = Math.max(0, Math.min(frames.length - 1, n));
    for (var i = 0; i < frames.length; i++) { frames[i].hidden = i !== cur; }
    ply.value = String(cur);
    text.textContent = "move " + cur + " of " + (frames.length - 1);
  }
  var steps = { first: function () { return 0; }, prev: function () { return cur - 1; },
    next: function () { return cur + 1; }, last: function () { return frames.length - 1; } };
  controls.addEventListener("click", function (e) {
    var s = e.target.getAttribute("data-step");
    if (s && steps[s]) { show(steps[s]()); }
  });
  ply.addEventListener("input", function () { show(parseInt(ply.value, 10) || 0); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") { show(cur + 1); } else if (e.key === "ArrowLeft") { show(cur - 1); }
  });
  controls.hidden = false;
  document.getElementById("frames").className = "frames one";
  show(0);
})();
