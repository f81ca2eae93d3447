// The live floor (docs/live_floor.md): the page painted by the server, kept up to date by
// the server-sent events of /api/v1/stream. A tile is amber with open medium or low cases,
// red with an open high or critical one, grey when its open table is silent (stale); a new
// critical finding flashes its tile and beeps once, unless muted (kept in localStorage).
(() => {
  "use strict";
  const strip = document.getElementById("strip");
  const tiles = document.getElementById("tiles");
  if (!strip || !tiles || !window.EventSource) return;
  const SEVERITIES = ["critical", "high", "medium", "low"];
  const MUTE_KEY = "tablewatch.floor.muted";
  const live = document.getElementById("live");
  const muteButton = document.getElementById("mute");
  // the server's clock less this page's: the ages are counted on the server's time
  let offset = Number(strip.dataset.nowMs || Date.now()) - Date.now();
  let audio = null;

  const store = (() => {
    try { return window.localStorage; } catch (e) { return null; }
  })();
  const muted = () => (store ? store.getItem(MUTE_KEY) === "1" : false);
  function showMute() {
    muteButton.textContent = muted() ? "sound off" : "sound on";
    muteButton.setAttribute("aria-pressed", String(muted()));
    muteButton.title = muted() ? "a new critical finding is silent" : "a new critical finding beeps";
  }
  muteButton.addEventListener("click", () => {
    if (store) store.setItem(MUTE_KEY, muted() ? "0" : "1");
    showMute();
    if (!muted()) unlockAudio();
  });
  showMute();

  function unlockAudio() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
    } catch (e) { audio = null; }
  }
  // browsers start audio only after a gesture on the page: the first click or key unlocks it
  document.addEventListener("click", unlockAudio, { once: true });
  document.addEventListener("keydown", unlockAudio, { once: true });

  function beep() {
    if (muted()) return;
    document.body.dataset.beeps = String(Number(document.body.dataset.beeps || 0) + 1);
    unlockAudio();
    if (!audio) return;
    const t = audio.currentTime;
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.type = "square";
    tone.frequency.setValueAtTime(880, t);
    gain.gain.setValueAtTime(0.15, t);
    gain.gain.exponentialRampToValueAtTime(0.001, t + 0.35);
    tone.connect(gain).connect(audio.destination);
    tone.start(t);
    tone.stop(t + 0.35);
  }

  function ago(seconds) {
    if (seconds === null) return "never";
    if (seconds < 120) return `${Math.round(seconds)} s ago`;
    if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`;
    if (seconds < 172800) return `${Math.round(seconds / 3600)} h ago`;
    return `${Math.round(seconds / 86400)} days ago`;
  }
  const now = () => Date.now() + offset;
  const since = (ms) => (ms === "" || ms === null || ms === undefined ? null : Math.max(0, (now() - Number(ms)) / 1000));

  function tileOf(tableId) {
    for (const a of tiles.querySelectorAll("a.tile")) if (a.dataset.table === tableId) return a;
    return null;
  }

  function counts(into, openCases) {
    into.replaceChildren();
    for (const s of SEVERITIES) {
      const span = document.createElement("span");
      span.className = `count sev-text-${s}${openCases[s] ? "" : " zero"}`;
      span.dataset.severity = s;
      const b = document.createElement("b");
      b.textContent = String(openCases[s] || 0);
      span.append(`${s} `, b);
      into.append(span);
    }
    into.dataset.total = String(SEVERITIES.reduce((n, s) => n + (openCases[s] || 0), 0));
  }

  function newTile(tableId) {
    const a = document.createElement("a");
    a.className = "tile";
    a.href = `/tables/${encodeURIComponent(tableId)}`;
    a.dataset.table = tableId;
    const h3 = document.createElement("h3");
    h3.textContent = tableId;
    const dl = document.createElement("dl");
    for (const [label, field] of [["rounds today", "rounds_today"], ["open cases", "open_cases"],
                                  ["last event", "last_event"], ["table", "state"]]) {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.dataset.field = field;
      dl.append(dt, dd);
    }
    a.append(h3, dl);
    const after = [...tiles.querySelectorAll("a.tile")].find((t) => t.dataset.table > tableId);
    tiles.insertBefore(a, after || null);
    const none = document.getElementById("no-tables");
    if (none) none.remove();
    document.getElementById("table-count").textContent = String(tiles.querySelectorAll("a.tile").length);
    return a;
  }

  function onTile(t) {
    const a = tileOf(t.table_id) || newTile(t.table_id);
    a.classList.remove("level-ok", "level-amber", "level-red");
    a.classList.add(`level-${t.level}`);
    a.classList.toggle("stale", t.stale);
    a.classList.toggle("closed", !t.table_open);
    a.dataset.level = t.level;
    a.dataset.lastMs = t.last_event_ms === null ? "" : String(t.last_event_ms);
    a.querySelector("[data-field=rounds_today]").textContent = String(t.rounds_today);
    counts(a.querySelector("[data-field=open_cases]"), t.open_cases);
    a.querySelector("[data-field=last_event]").textContent = ago(since(a.dataset.lastMs));
    a.querySelector("[data-field=state]").textContent = t.stale ? "open, silent"
      : t.table_open ? "open" : t.last_event_ms === null ? "idle" : "closed";
  }

  function onStrip(s) {
    offset = s.now_ms - Date.now();
    strip.dataset.received = String(Number(strip.dataset.received || 0) + 1);
    counts(strip.querySelector(".counts"), s.open_cases);
    strip.dataset.openTotal = String(s.open_total);
    strip.dataset.oldestMs = s.oldest_open_ms === null ? "" : String(s.oldest_open_ms);
    tick();
  }

  function onFinding(f) {
    if (f.severity !== "critical") return;
    const a = tileOf(f.table_id);
    if (a) {
      a.classList.remove("flash");
      void a.offsetWidth; // restart the animation
      a.classList.add("flash");
      a.dataset.flashed = f.finding_id;
    }
    beep();
  }

  function tick() {
    const oldest = strip.dataset.oldestMs;
    document.getElementById("oldest").textContent = oldest ? ago(since(oldest)).replace(/ ago$/, "") : "none";
    for (const a of tiles.querySelectorAll("a.tile")) {
      a.querySelector("[data-field=last_event]").textContent = ago(since(a.dataset.lastMs));
    }
  }
  setInterval(tick, 1000);

  function status(state, text) {
    live.dataset.state = state;
    live.textContent = text;
  }
  const source = new EventSource("/api/v1/stream");
  const json = (handler) => (e) => { try { handler(JSON.parse(e.data)); } catch (err) { console.error(err); } };
  source.addEventListener("open", () => status("live", "live"));
  source.addEventListener("error", () => status("down", "reconnecting…"));
  source.addEventListener("tile", json(onTile));
  source.addEventListener("strip", json(onStrip));
  source.addEventListener("finding", json(onFinding));
  source.addEventListener("problem", json((p) => {
    if (p.reason) status("down", `store unreadable: ${p.reason}`);
    else status("live", "live");
  }));
})();
