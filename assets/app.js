// app.js: boots the engine, restores the session (share link, then
// sessionStorage, else the welcome scenario), runs the animation-frame
// loop (virtual time advances by the speed; the scene goes to the canvas
// iframe), and wires the top bar, timeline, canvas messages and console.
"use strict";

// slowMs: while the clock runs, the shell's text (clock, panels, summary)
// is rewritten at most this often; the canvas draws every frame.
const slowMs = 250;

// setText sets el's text when it differs (a write repaints).
function setText(el, text) {
  if (el && el.textContent !== text) el.textContent = text;
}

const App = {
  speed: 1,
  sceneDirty: true,
  lastVersion: -1,
  canvasReady: false,
  firstFrameMs: null,
  firstFrameN: null, // the canvas's frame number of it: 1 when Ebiten's first frame had the cluster
  bootMs: {},
  scenarioName: "",
  lastSlow: 0,
  lastMarks: 0,
  marksCount: -1,
  pendingWhere: new Map(),
  whereId: 1,

  async boot() {
    // What the first session may need is fetched while the wasm loads
    // (index.html starts it before the stylesheets).
    const e = window.__kafkasimEarly || {};
    this.early = {
      examples: (e.examples || fetch("scenarios/index.json").then((r) => r.json())).then((v) => v || []).catch(() => []),
      welcome: e.welcome || fetch("assets/welcome.ksim").then((r) => r.text()),
    };
    // bootMs: when each step of the start finished, from navigation
    // start (make bench's canvasbench prints them).
    const t = (k) => { this.bootMs[k] = Math.round(performance.now()); };
    // The welcome scenario is loaded as the engine starts, when that is
    // what restore() would load (restoreEarly).
    this.early.welcome.then((text) => { this.welcomeText = text; }, () => {});
    kafkasim._onEngine = () => this.restoreEarly();
    // The controls and the lesson menu need no engine: they are wired
    // while the wasm loads, not after (their handlers call the engine only
    // when used; before it is up a call throws "not ready").
    this.wire();
    Lessons.init();
    t("wired");
    try {
      await kafkasim._start();
    } catch (e) {
      document.getElementById("banner").hidden = false;
      document.getElementById("banner").textContent = "The engine failed to start: " + e.message;
      throw e;
    }
    t("engine");
    await this.loadExamples();
    t("examples");
    await this.restore();
    t("restored");
    await Lessons.start();
    t("lessons");
    kafkasim._resolveReady();
    this.readyMs = performance.now();
    this.keep();
    kafkasim.onRestart(() => this.restart());
    kafkasim.onChange((what) => {
      this.sceneDirty = true;
      UI.dirty = true;
      if (what !== "advance") this.keep();
      if (what === "load") {
        this.setName(kafkasim.name);
        Panels.story = null;
        Panels.compareWith = null;
        UI.divergeAt = -1;
        UI.selection = null;
        this.marksCount = -1;
      }
    });
    let last = performance.now();
    const frame = (ts) => {
      const dt = Math.max(0, ts - last);
      last = ts;
      this.frame(dt);
      requestAnimationFrame(frame);
    };
    // When the canvas's first frame (drawn, its cluster loaded early) is
    // still to reach the screen, the shell's frames (the panels, the
    // marks, the summary) start after it (its "frame" message, or 500 ms
    // at most): their first one ran in the same animation frame, before
    // the canvas's, and its DOM writes were styled, laid out and painted
    // in the update that shows the cluster.
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      this.afterFirstFrame = null;
      last = performance.now();
      requestAnimationFrame(frame);
    };
    if (this.restoredEarly && this.firstFrameMs === null && !document.getElementById("canvas").hidden) {
      this.afterFirstFrame = start;
      setTimeout(start, 500);
    } else start();
  },

  // keep remembers, in this page, what a restarted engine needs to carry
  // on: the session's script and name (after every change but a plain
  // advance of time) and the moment (every frame, in drawTop).
  keep() {
    try {
      const st = kafkasim.state();
      if (!st.loaded) return;
      this.kept = { script: kafkasim.script(), name: this.scenarioName || kafkasim.name, at: st.now, playing: st.playing, speed: st.speed };
    } catch (e) { /* the engine is restarting */ }
  },
  // restart puts the kept session into a fresh engine: the canvas iframe
  // reloaded (Ebiten does when the WebGL context is lost), and the engine
  // with it. Only the current branch comes back, replayed to the moment.
  restart() {
    this.lastView = null;
    this.sceneDirty = true;
    const k = this.kept;
    if (!k) return;
    try {
      kafkasim.load(k.script, k.name);
      kafkasim.seek(k.at);
      kafkasim.speed(k.speed || 1);
      if (k.playing) kafkasim.play();
      this.setName(k.name);
      UI.toast("The canvas restarted (its graphics context was lost); the session is restored.");
    } catch (e) { console.warn("restart:", e); }
  },

  async restore() {
    if (await ServerLink.restore(this)) return; // ?fork=ROOM, ?share=ID (server.js)
    const hash = location.hash.slice(1);
    if (hash.includes("ksim=")) {
      try { kafkasim.openShare(hash); this.setName(kafkasim.name); return; } catch (e) { UI.toast("The share link does not open: " + e.message); }
    }
    const saved = sessionStorage.getItem("kafkasim.session");
    if (saved) {
      try {
        const s = JSON.parse(saved);
        kafkasim.load(s.script, s.name);
        kafkasim.seek(s.at || 0);
        this.setName(s.name || "restored session");
        if (s.playing) kafkasim.play();
        return;
      } catch (e) { console.warn("restore:", e); }
    }
    if (!this.restoredEarly) this.welcome(await this.early.welcome);
  },
  // restoreEarly loads the welcome scenario while the engine starts
  // (kafkasim._onEngine, called inside the engine's start, before Ebiten's
  // loop), so that Ebiten's first frame shows the cluster rather than an
  // empty canvas that waits for the shell's restore after it. Only on a
  // visit that restore() would answer with the welcome scenario anyway
  // (welcomeFirst) and once its text is here (canvas.html starts Go after
  // the text's fetch settled: index.html's beforeGo); else restore() does
  // it all.
  restoreEarly() {
    // index.html keeps the text as it arrives: this runs inside the Go
    // start, maybe before the promise's handlers above did.
    const text = typeof this.welcomeText === "string" ? this.welcomeText : (window.__kafkasimEarly || {}).welcomeText;
    if (typeof text !== "string" || !this.welcomeFirst()) return;
    this.welcome(text);
    this.postScene(); // the canvas's view options, before its first scene
    this.restoredEarly = true;
  },
  // welcomeFirst: nothing else to restore (no room, fork, share or lesson
  // asked for in the address, no shared session in its fragment, no
  // session kept in this tab, no lesson to resume).
  welcomeFirst() {
    const q = new URLSearchParams(location.search);
    for (const k of ["room", "fork", "share", "lesson"]) if (q.has(k)) return false;
    if (location.hash.includes("ksim=")) return false;
    try { if (sessionStorage.getItem("kafkasim.session")) return false; } catch (e) { return false; }
    const st = Lessons.store();
    return !(st.current && st.current.source && st.resume !== false);
  },
  welcome(text) {
    kafkasim.load(text, "welcome: a live cluster");
    this.setName(kafkasim.name);
    kafkasim.play();
    this.hint("This cluster is live: p1 writes orders, c1 and c2 read them. Break something: click a broker (L marks a leader) and choose Crash, then drag the timeline back to undo it. Or open a lesson or a scenario from the menus. Press ? for keys.");
  },

  // hint shows a one-time line over the canvas; any click or key dismisses it.
  hint(text) {
    const b = document.getElementById("banner");
    b.replaceChildren(h("span", {}, text), h("button", { class: "small", onclick: () => (b.hidden = true) }, "got it"));
    b.hidden = false;
    const off = () => { b.hidden = true; document.removeEventListener("keydown", off); document.removeEventListener("pointerdown", off, true); };
    document.addEventListener("keydown", off);
    document.addEventListener("pointerdown", off, true);
    this.hintFor = this.scenarioName;
    setTimeout(() => (b.hidden = true), 30000);
  },
  setName(n) {
    this.scenarioName = n;
    document.getElementById("scenario-name").textContent = n;
    // The welcome hint is about the welcome cluster: a lesson or another
    // scenario replaces it, so it must not sit over their picture.
    if (this.hintFor !== undefined && n !== this.hintFor) document.getElementById("banner").hidden = true;
  },

  // persist keeps the session in sessionStorage and, when short, the URL
  // fragment: a reload (Ebiten reloads on WebGL loss) restores it. A
  // session too long for the fragment leaves the bare path in the address
  // bar, except the stored share link share() put there, which stays
  // while the session is the one it shares.
  persist() {
    clearTimeout(this._persist);
    this._persist = setTimeout(() => this.persistNow(), 400);
  },
  // persistNow persists at once; leaving (beforeunload) it keeps the
  // session only: the address of a page being left is no use to anyone,
  // and a history change then is a same-document navigation racing the
  // one that leaves.
  persistNow(leaving = false) {
    if (!kafkasim._engine()) return;
    try {
      const st = kafkasim.state();
      if (!st.loaded) return;
      const script = kafkasim.script();
      sessionStorage.setItem("kafkasim.session", JSON.stringify({ script, at: st.now, name: this.scenarioName, playing: st.playing }));
      if (leaving) return;
      const sh = kafkasim._soft("share");
      if (sh.ok && sh.ok.fragment) history.replaceState(null, "", "#" + sh.ok.fragment);
      else if (this.shared && this.shared.script === script && location.href === this.shared.link) return;
      else history.replaceState(null, "", location.pathname);
    } catch (e) { console.warn("persist:", e); }
  },

  frame(dt) {
    if (!kafkasim._engine()) return; // the canvas iframe is reloading (its engine restarts)
    const r = kafkasim._soft("tick", dt);
    if (r.error) { UI.toast(r.error.msg); kafkasim.pause(); }
    const v = r.ok ? r.ok.version : 0;
    if (v !== this.lastVersion) { this.lastVersion = v; this.sceneDirty = true; UI.dirty = true; }
    if (this.sceneDirty) this.postScene();
    // the top bar, the panels and the marks change in the same frames
    const now = performance.now();
    const slow = now - this.lastSlow >= slowMs;
    if (slow) this.lastSlow = now;
    this.drawTop(slow);
    if (slow && UI.dirty) this.refreshPanels(false);
    if (slow && now - this.lastMarks > 700) { this.lastMarks = now; this.drawMarks(false); }
    if (this.playingSince && now - this.playingSince > 3000) { this.playingSince = now; this.persist(); }
  },

  // postScene tells the engine what the canvas should draw (view, hidden
  // classes, selection, highlights, span) when that changed; the canvas
  // reads the scene from the engine in-process on its next update.
  postScene() {
    this.sceneDirty = false;
    if (!kafkasim._engine()) return;
    const view = JSON.stringify({ view: UI.view, hide: [...UI.hidden], selection: UI.selection || undefined, highlights: UI.highlights || undefined, cells: 12, span: UI.span });
    if (view === this.lastView) return;
    const r = kafkasim._soft("view", view);
    if (r.error) console.warn("view:", r.error.msg);
    else this.lastView = view;
  },

  // drawTop shows the moment in the top bar, writing only what changed,
  // and while the clock runs only in slow frames or when the thumb moved:
  // the compositor redraws one box around all a frame changed (docs/canvas.md).
  drawTop(slow = true) {
    const st = kafkasim.state();
    if (this.kept) { this.kept.at = st.now; this.kept.playing = st.playing; }
    const play = document.getElementById("btn-play");
    if (this._shownPlaying !== st.playing) {
      this._shownPlaying = st.playing;
      document.getElementById("play-icon").innerHTML = st.playing
        ? '<svg viewBox="0 0 16 16" width="14" height="14"><rect x="3" y="3" width="3.5" height="10" fill="currentColor"/><rect x="9.5" y="3" width="3.5" height="10" fill="currentColor"/></svg> pause'
        : '<svg viewBox="0 0 16 16" width="14" height="14"><path d="M4 3v10l9-5z" fill="currentColor"/></svg> play';
      play.classList.toggle("on", st.playing);
    }
    if (st.playing && !this.playingSince) this.playingSince = performance.now();
    if (!st.playing) this.playingSince = 0;
    const max = Math.max(st.horizon, st.now, 1000);
    // the thumb's position in thousandths of the slider (about a pixel)
    const thumb = Math.round((st.now / max) * 1000);
    const shown = this._top || {};
    const jumped = Math.abs(st.now - (shown.now || 0)) > slowMs * Math.max(1, st.speed || 1) * 2;
    if (st.playing && !slow && !jumped && thumb === shown.thumb) return;
    setText(document.getElementById("clock"), "t=" + fmtTime(st.now));
    const slider = document.getElementById("time");
    if (!this.dragging && (shown.max !== max || shown.value !== st.now)) {
      slider.max = String(max);
      slider.value = String(st.now);
    }
    this._top = this.dragging ? { now: st.now, thumb } : { now: st.now, thumb, max, value: st.now };
    setText(document.getElementById("time-max"), fmtTime(max));
  },

  // drawMarks puts notable events, fork points and the divergence on the
  // timeline.
  drawMarks(force) {
    const st = kafkasim.state();
    if (!force && st.events === this.marksCount && st.horizon === this._markHorizon) return;
    this.marksCount = st.events;
    this._markHorizon = st.horizon;
    const box = document.getElementById("time-marks");
    box.replaceChildren();
    const max = Math.max(st.horizon, st.now, 1000);
    const put = (at, cls, title) => {
      const m = h("span", { class: "tm " + cls, title: fmtTime(at) + " " + title, style: `left:${(at / max) * 100}%`, onclick: () => UI.seek(at) });
      box.append(m);
    };
    // only the types marked: the engine filters before formatting any text
    for (const e of kafkasim.events({ limit: 3000, types: ["leader", "broker.state", "net", "truncate", "lost"] })) {
      if (e.type === "leader") put(e.at, e.text.includes("UNCLEAN") || /unclean/i.test(e.text) ? "unclean" : "election", e.text);
      else if (e.type === "broker.state") put(e.at, "fault", e.text);
      else if (e.type === "net") put(e.at, "net", e.text);
      else if (e.type === "truncate" || e.type === "lost") put(e.at, "loss", e.text);
    }
    const cur = st.branches.find((b) => b.id === st.branch);
    if (cur && cur.parent > 0) put(cur.forkAt, "fork", "this branch starts here: " + cur.change);
    if (UI.divergeAt >= 0) put(UI.divergeAt, "diverge", "the compared branches diverge here");
  },

  refreshPanels(force) {
    if (!kafkasim._engine()) return;
    UI.dirty = false;
    try {
      const t = UI.currentTab;
      if (t === "story") Panels.renderStory();
      else if (t === "findings") Panels.renderFindings();
      else if (t === "files") Panels.renderFiles();
      else if (t === "meta") Panels.renderMeta();
      else if (t === "offsets") Panels.renderOffsets();
      else if (t === "metrics") Panels.renderMetrics();
      else if (t === "events") Panels.renderEvents(force);
      else if (t === "branches") Panels.renderBranches();
      else if (t === "script") Panels.renderScript();
      if (t !== "findings") {
        const n = kafkasim._call("findingsCount");
        setText(document.getElementById("findings-count"), n ? String(n) : "");
      }
      const st = kafkasim.state();
      setText(document.getElementById("branch-count"), st.branches.length > 1 ? String(st.branches.length) : "");
      this.drawSummary();
    } catch (e) { console.error(e); }
  },

  // drawSummary: the last few things that happened, in words, under the canvas.
  drawSummary() {
    const evs = kafkasim.events({ limit: 4 });
    const key = evs.map((e) => e.at + " " + e.text).join("\n");
    if (key === this._summary) return; // unchanged: no repaint
    this._summary = key;
    const box = document.getElementById("summary");
    box.replaceChildren(...evs.map((e) => h("div", {}, h("span", { class: "time" }, fmtTime(e.at)), " " + e.text)));
  },

  togglePlay() { if (UI.locked()) return; const st = kafkasim.state(); if (st.playing) kafkasim.pause(); else kafkasim.play(); this.persist(); },
  step() {
    if (UI.locked()) return;
    const r = kafkasim.step();
    if (!r.stepped) UI.toast("nothing happened within a minute of virtual time");
    this.persist();
  },
  // stepBack seeks to the previous event a learner would see.
  stepBack() {
    if (UI.locked()) return;
    const now = kafkasim.now();
    const evs = kafkasim.events({ limit: 400 });
    let t = 0;
    for (const e of evs) if (e.at < now) t = e.at;
    UI.seek(t);
  },
  setSpeed(x) {
    if (UI.locked()) return;
    this.speed = kafkasim.speed(x);
    const s = document.getElementById("speed");
    s.value = String(Math.log10(this.speed));
    document.getElementById("speed-label").textContent = this.speed >= 1 ? Math.round(this.speed * 10) / 10 + "x" : "1/" + Math.round(1 / this.speed) + "x";
  },
  cycleView() {
    const views = ["cluster", "spacetime", "both"];
    this.setView(views[(views.indexOf(UI.view) + 1) % views.length]);
  },
  setView(v) {
    UI.view = v;
    for (const b of document.querySelectorAll("[data-view]")) b.classList.toggle("on", b.dataset.view === v);
    this.sceneDirty = true;
  },
  toggleScenarioMenu() {
    const d = document.getElementById("scenario-dropdown");
    d.hidden = !d.hidden;
    if (!d.hidden) document.getElementById("example-filter").focus();
  },

  async loadExamples() {
    try {
      this.examples = await this.early.examples;
    } catch (e) { this.examples = []; }
    this.renderExamples("");
  },
  renderExamples(filter) {
    const list = document.getElementById("example-list");
    list.replaceChildren();
    const f = filter.toLowerCase();
    for (const ex of this.examples) {
      if (f && !(ex.name + " " + ex.title).toLowerCase().includes(f)) continue;
      list.append(h("button", { class: "example", title: ex.title, onclick: () => this.openExample(ex) }, h("b", {}, ex.name), h("span", {}, ex.title)));
    }
  },
  async openExample(ex) {
    UI.closeMenus();
    const text = await (await fetch(ex.file)).text();
    this.loadText(text, ex.name);
  },
  loadText(text, name) {
    if (UI.locked()) return false;
    const r = kafkasim._soft("load", text);
    kafkasim.name = name;
    if (r.error) {
      UI.echo(`${name}: line ${r.error.line || "?"}, column ${r.error.col || "?"}: ${r.error.msg}`, "err");
      UI.toast("The scenario does not load: " + r.error.msg);
      return false;
    }
    kafkasim._changed("load");
    this.setName(name);
    Panels.story = null;
    UI.divergeAt = -1;
    Panels.compareWith = null;
    UI.echo(`loaded ${name}: press Space to play, → to step`, "note");
    this.persist();
    return true;
  },
  exportKsim() {
    const text = kafkasim.script();
    const a = h("a", { href: URL.createObjectURL(new Blob([text], { type: "text/plain" })), download: (this.scenarioName || "session").replace(/[^\w.-]+/g, "-") + ".ksim" });
    document.body.append(a);
    a.click();
    a.remove();
  },
  async share() {
    let link = kafkasim.share();
    const script = kafkasim.script();
    if (!link) link = await ServerLink.share(script); // too long: a short id on the server (server.js)
    if (!link) { UI.toast("This session is too long for a link: it is downloaded as a .ksim file instead."); this.exportKsim(); return; }
    history.replaceState(null, "", link);
    this.shared = { link: location.href, script }; // persistNow leaves it in the address bar
    try { await navigator.clipboard.writeText(link); UI.toast("Share link copied: it opens this session at this moment."); }
    catch (e) { UI.toast("Share link is in the address bar."); }
  },

  // canvas messages
  onCanvas(m) {
    if (!m || typeof m !== "object") return;
    const frame = document.getElementById("canvas").getBoundingClientRect();
    switch (m.type) {
      case "ready": this.canvasReady = true; this.sceneDirty = true; break;
      case "frame":
        // m.ms counts from the iframe's navigation start: on this page's clock
        if (this.firstFrameMs === null) {
          let off = 0;
          try { off = document.getElementById("canvas").contentWindow.performance.timeOrigin - performance.timeOrigin; } catch (e) { /* not same-origin */ }
          this.firstFrameMs = m.ms + off;
          this.firstFrameN = m.n;
          if (this.afterFirstFrame) this.afterFirstFrame();
        }
        break;
      case "click": document.getElementById("banner").hidden = true; this.onCanvasClick(m, frame.left + m.x, frame.top + m.y); break;
      case "hover":
        if (!m.kind || UI.menuOpen()) { hideExplain(); break; }
        showExplain(explainKey(m), frame.left + m.x, frame.top + m.y, this.hoverExtra(m));
        break;
      case "key": UI.onKey({ key: m.key, target: null, ctrlKey: m.ctrl, metaKey: m.meta, altKey: m.alt }); break;
      case "where": { const p = this.pendingWhere.get(m.id); if (p) { this.pendingWhere.delete(m.id); p(m); } break; }
      case "error": console.warn("canvas:", m.error); break;
    }
  },
  hoverExtra(m) {
    if (m.kind === "broker") return `broker ${m.broker}: ${UI.brokerState(m.broker)}`;
    if (m.kind === "record") return `${m.partition} offset ${m.offset}` + (m.broker ? ` on broker ${m.broker}` : "") + this.deletingNote(m.partition);
    if (m.kind === "replica") return `${m.partition} on broker ${m.broker}` + this.deletingNote(m.partition);
    if (m.kind === "partition") return m.partition + this.deletingNote(m.partition);
    if (m.name) return m.name;
    return "";
  },
  // deletingNote says why a struck-through partition is still drawn: its
  // topic is marked for deletion (ZooKeeper mode) and waits for brokers.
  deletingNote(partition) {
    if (!partition) return "";
    const topic = partition.slice(0, partition.lastIndexOf("-"));
    const t = kafkasim.snapshot().topics.find((x) => x.name === topic);
    return t && t.deleting ? ". Struck through: topic " + topic + " is marked for deletion (/admin/delete_topics); the controller deletes each replica when its broker answers StopReplica, so a broker that is down holds the topic here until it is back" : "";
  },
  onCanvasClick(m, x, y) {
    UI.closeMenus();
    const ref = { kind: m.kind, broker: m.broker, partition: m.partition, offset: m.offset, name: m.name, msg: m.msg };
    if (!m.kind) { UI.select(null); return; }
    UI.select(ref);
    switch (m.kind) {
      case "broker": UI.brokerMenu(m.broker, x, y); break;
      case "record": {
        const r = kafkasim._soft("recordAt", m.partition, m.broker || 0, m.offset || 0);
        if (r.ok) UI.openStory(r.ok); else UI.toast(r.error.msg);
        break;
      }
      case "replica": case "partition":
        Panels.files.partition = m.partition; Panels.files.broker = m.broker || 0; UI.tab("files"); break;
      case "producer": UI.producerMenu(m.name, x, y); break;
      case "consumer": UI.consumerMenu(m.name, x, y); break;
      case "group": UI.tab("offsets"); break;
    }
  },
  // where asks the canvas where an element is drawn (page coordinates).
  where(ref) {
    return new Promise((res) => {
      const id = this.whereId++;
      const frame = document.getElementById("canvas");
      this.pendingWhere.set(id, (m) => {
        const r = frame.getBoundingClientRect();
        res(m.found ? { x: r.left + m.x, y: r.top + m.y, w: m.w, h: m.h } : null);
      });
      frame.contentWindow.postMessage(JSON.stringify({ type: "where", id, ref }), "*");
      setTimeout(() => { if (this.pendingWhere.has(id)) { this.pendingWhere.delete(id); res(null); } }, 3000);
    });
  },

  wire() {
    const $ = (id) => document.getElementById(id);
    $("btn-play").onclick = () => this.togglePlay();
    $("btn-step").onclick = () => this.step();
    $("btn-back").onclick = () => this.stepBack();
    $("btn-start").onclick = () => UI.seek(0);
    $("btn-end").onclick = () => UI.seek(kafkasim.state().horizon);
    $("btn-help").onclick = () => UI.toggleHelp();
    $("speed").oninput = (e) => this.setSpeed(Math.pow(10, Number(e.target.value)));
    const time = $("time");
    let seekTimer = 0;
    time.addEventListener("input", () => {
      this.dragging = true;
      clearTimeout(seekTimer);
      seekTimer = setTimeout(() => UI.seek(Number(time.value)), 120); // each backward seek replays from the seed
    });
    time.addEventListener("change", () => { this.dragging = false; clearTimeout(seekTimer); UI.seek(Number(time.value)); });
    $("scenario-btn").onclick = (e) => { e.stopPropagation(); this.toggleScenarioMenu(); };
    $("example-filter").oninput = (e) => this.renderExamples(e.target.value);
    for (const b of document.querySelectorAll("#scenario-dropdown [data-act]")) {
      b.onclick = () => {
        UI.closeMenus();
        const a = b.dataset.act;
        if (a === "open") $("file-input").click();
        else if (a === "export") this.exportKsim();
        else if (a === "share") this.share();
        else if (a === "restart") UI.seek(0);
      };
    }
    $("file-input").onchange = async (e) => {
      const f = e.target.files[0];
      if (!f) return;
      if (f.size > 16 << 20) { UI.toast("That file is over 16 MB: not a scenario."); return; }
      this.loadText(await f.text(), f.name.replace(/\.ksim$/, ""));
      e.target.value = "";
    };
    for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => UI.tab(b.dataset.tab);
    for (const b of document.querySelectorAll("[data-view]")) b.onclick = () => this.setView(b.dataset.view);
    const classes = $("classes");
    for (const c of ["produce", "ack", "fetch", "consume", "metadata", "zk", "heartbeat", "join", "other"]) {
      classes.append(h("button", { class: "cls on cls-" + c, "data-explain": "class." + c, onclick: (e) => {
        if (UI.hidden.has(c)) UI.hidden.delete(c); else UI.hidden.add(c);
        e.currentTarget.classList.toggle("on", !UI.hidden.has(c));
        this.sceneDirty = true;
      } }, c));
    }
    $("span").onchange = (e) => { UI.span = Number(e.target.value); this.sceneDirty = true; };
    $("act-produce").onclick = () => UI.produceDialog();
    $("act-consumer").onclick = () => UI.consumerDialog();
    $("act-split").onclick = () => UI.splitDialog();
    $("act-heal").onclick = () => UI.run("net heal");
    $("act-set").onclick = () => UI.settingsDialog("cluster");
    $("event-filter").oninput = () => Panels.renderEvents(true);
    $("event-wire").onchange = () => Panels.renderEvents(true);
    const input = $("console-in");
    input.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        const line = input.value;
        if (line.trim()) { UI.history.push(line); UI.histPos = UI.history.length; }
        input.value = "";
        UI.run(line);
      } else if (e.key === "ArrowUp") {
        if (UI.histPos > 0) input.value = UI.history[--UI.histPos];
        e.preventDefault();
      } else if (e.key === "ArrowDown") {
        UI.histPos = Math.min(UI.history.length, UI.histPos + 1);
        input.value = UI.history[UI.histPos] || "";
        e.preventDefault();
      } else if (e.key === "Escape") input.blur();
    });
    document.addEventListener("keydown", (e) => { if (UI.onKey(e)) e.preventDefault(); });
    document.addEventListener("click", (e) => {
      if (!e.target.closest(".popup") && !e.target.closest("#scenario-menu")) UI.closeMenus();
    });
    const onMessage = (e) => {
      const frame = $("canvas");
      if (!frame || e.source !== frame.contentWindow) return;
      this.onCanvas(e.data);
    };
    window.addEventListener("message", onMessage);
    // the canvas's messages from before this listened (index.html kept them)
    if (window.__kafkasimEarlyMessagesDone) window.__kafkasimEarlyMessagesDone();
    for (const e of (window.__kafkasimEarlyMessages || []).splice(0)) onMessage(e);
    $("canvas").addEventListener("load", () => {
      // a reload of the canvas (WebGL context lost) needs the view again
      this.canvasReady = false;
      this.sceneDirty = true;
      this.lastView = null;
    });
    window.addEventListener("beforeunload", () => this.persistNow(true));
    // ?canvas=0: panels only (no WebGL needed; the tests use it where the
    // picture is not the point). The engine still runs in the iframe
    // (canvas.html?draw=0), which stays out of sight.
    if (new URLSearchParams(location.search).get("canvas") === "0") {
      $("canvas").hidden = true;
      $("canvas-missing").textContent = "The canvas is off (?canvas=0): the panels on the right show everything in text.";
      $("canvas-missing").hidden = false;
    }
  },
};
window.App = App;
App.boot();
