// Refreshes the live part of the status page every two seconds. No framework:
// fetch the server-rendered fragment and swap it in.
(function () {
  var live = document.getElementById("live");
  if (!live) { return; }
  // The LEDs blink in step with the clock, not from each swap: every
  // swap would start their animations again and break the rhythm.
  function phaseLEDs() {
    var leds = live.querySelectorAll(".led[data-period]");
    for (var i = 0; i < leds.length; i++) {
      var p = parseInt(leds[i].getAttribute("data-period"), 10);
      if (p > 0) { leds[i].style.animationDelay = -(Date.now() % p) + "ms"; }
    }
  }
  phaseLEDs();
  function tick() {
    fetch("/live", { cache: "no-store" })
      .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.text(); })
      .then(function (html) {
        live.innerHTML = html;
        phaseLEDs();
        var st = document.getElementById("live-state");
        var badge = document.getElementById("badge");
        if (st && badge) {
          badge.textContent = st.getAttribute("data-text");
          badge.className = "badge k-" + st.getAttribute("data-kind");
        }
      })
      .catch(function () { /* the device may be restarting; try again */ })
      .finally(function () { setTimeout(tick, 2000); });
  }
  setTimeout(tick, 2000);
})();
