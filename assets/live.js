// live.js: the classroom in the app page, when kafkasim serve serves it.
// A teacher creates a room from the session on the page and gets its join
// code and QR code; students join with the code. In a room the page is in
// live mode: the engine (wasm/engine/live.go, wasm/app/live.go) keeps an
// exact copy of the room's cluster by replaying its commands, so the
// picture, stories and panels are the room's; the console, play, pause
// and speed go to the room for the teacher (who holds the control token)
// and are refused, saying why, for students. A student can fork their own
// copy (the page leaves live mode and keeps the room's state as its own
// session) and go back to the live room. The teacher steps a lesson every
// page follows and asks predictions; students answer here and see the
// class's answers when the teacher reveals them. The protocol is
// docs/protocol.md; the engine calls are in docs/page-api.md.
"use strict";

const Live = {
  available: false, // the page is served by kafkasim serve
  code: "",         // the room followed (or forked from)
  forkedFrom: "",   // the room this page's own copy came from
  status: { phase: "local" },
  lesson: null,     // teacher: the lesson being taught {l, i, ran, file}
  ownError: "",     // teacher: why their own lesson file did not open
  lessonCache: {},
  pending: new Map(), // request id -> what to do with its reply

  // lockText is why a watcher's controls are off (their tooltips, the
  // bar, refused keys and menu items say it).
  lockText: "The teacher drives this room; Fork to try it yourself.",
  // driving are the page's controls that would drive the cluster: off for
  // a watcher. What only changes this page's view (views, message
  // toggles, the window, tabs, panels, stories, export, share, help)
  // stays; the Classroom menu and the bar's buttons stay.
  driving: ["#btn-start", "#btn-back", "#btn-play", "#btn-step", "#btn-end", "#speed", "#time",
    "#act-produce", "#act-consumer", "#act-split", "#act-heal", "#act-set", "#console-in", "#lesson-btn",
    '#scenario-dropdown [data-act="open"]', "#file-input", '#scenario-dropdown [data-act="restart"]', "#example-filter", "#example-list button"],

  call(name, ...args) { return kafkasim._call(name, ...args); },
  inRoom() { return this.status && this.status.live; },
  driver() { return this.inRoom() && this.status.role === "driver"; },
  tokenKey(code) { return "kafkasim.room." + code.toUpperCase() + ".token"; },

  async init() {
    try {
      // index.html asked at once (window.__kafkasimEarly.info); once used
      // it is asked again
      const early = window.__kafkasimEarly && window.__kafkasimEarly.info;
      if (early) window.__kafkasimEarly.info = null;
      const info = await (early || fetch("api/info").then((r) => (r.ok ? r.json() : null)));
      this.available = !!info && info.protocol >= 1;
    } catch (e) { this.available = false; }
    if (!this.available) return;
    const btn = h("button", { id: "class-btn", title: "Teach a class or join one (c)", onclick: (e) => { e.stopPropagation(); this.toggleMenu(); } }, "Classroom ▾");
    this.menu = h("div", { class: "dropdown", id: "class-dropdown", hidden: true });
    const anchor = document.getElementById("lesson-menu") || document.getElementById("scenario-menu");
    anchor.after(h("div", { class: "menu", id: "class-menu" }, btn, this.menu));
    this.bar = h("div", { id: "live-bar", hidden: true, "aria-live": "polite" });
    document.getElementById("timeline").after(this.bar);
    this.pane = h("section", { id: "class-pane", hidden: true, "aria-label": "classroom" });
    this.ownInput = h("input", { type: "file", accept: ".md,text/markdown,text/plain", hidden: true, onchange: (ev) => {
      const f = ev.target.files && ev.target.files[0];
      ev.target.value = "";
      if (!f) return;
      if (f.size > 256 << 10) { this.ownError = "That file is over 256 KB: not a lesson. The room's lesson is unchanged."; this.render(); return; }
      f.text().then((text) => this.startOwnLesson(text));
    } });
    document.body.append(this.ownInput);
    document.getElementById("panel").prepend(this.pane);
    document.addEventListener("click", (e) => { if (!e.target.closest("#class-menu")) this.menu.hidden = true; });
    document.addEventListener("keydown", (e) => {
      if (e.target && /INPUT|TEXTAREA|SELECT/.test(e.target.tagName)) return;
      // c with a broker selected crashes it (controls.js): the menu only without one.
      const broker = UI.selection && UI.selection.kind === "broker";
      if (e.key === "c" && !broker && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); this.toggleMenu(); }
    });
    // In a room the URL says which (?room=CODE) and the session is the
    // room's: the page does not keep it as its own.
    // The canvas iframe reloads when its WebGL context is lost, and the
    // engine (and its connection) with it: a page in a room joins again,
    // after App has put back its local copy.
    kafkasim.onRestart(() => {
      if (this.code && this.status.live) { const code = this.code; this.status = { phase: "local" }; setTimeout(() => this.join(code), 0); }
    });
    // The examples' list is drawn again as its filter changes: its buttons
    // get the lock as they appear.
    new MutationObserver(() => { if (UI.lock) this.applyLock(); }).observe(document.getElementById("example-list"), { childList: true });
    const persistNow = App.persistNow.bind(App);
    App.persistNow = (...a) => { if (!this.inRoom()) persistNow(...a); };
    // A timer, not animation frames: a teacher's page in a background tab
    // (the projector shows another window) keeps up with the room.
    setInterval(() => this.poll(), 100);
  },

  // restore joins the room of a ?room=CODE link; true when it did.
  async restore() {
    const q = new URLSearchParams(location.search);
    const code = q.get("room");
    if (!code || !this.available) return false;
    const m = /token=([^&]+)/.exec(location.hash);
    if (m) { sessionStorage.setItem(this.tokenKey(code), decodeURIComponent(m[1])); history.replaceState(null, "", location.pathname + location.search); }
    return this.join(code);
  },

  toggleMenu() {
    if (!this.menu.hidden) { this.menu.hidden = true; return; }
    UI.closeMenus();
    const codeIn = h("input", { id: "join-code", placeholder: "code, e.g. K7M2QX", maxlength: "12", autocomplete: "off",
      onkeydown: (e) => { if (e.key === "Enter") go(); } });
    const go = () => { this.menu.hidden = true; this.join(codeIn.value.trim()); };
    const kids = [];
    if (this.inRoom()) {
      kids.push(h("div", { class: "dd-title" }, "Room " + this.code),
        this.driver() ? null : h("button", { onclick: () => { this.menu.hidden = true; this.fork(); } }, "Fork my own copy (experiment without touching the room)"),
        h("button", { onclick: () => { this.menu.hidden = true; this.leave(); } }, "Leave the room"));
    } else {
      kids.push(h("div", { class: "dd-title" }, "Teach"),
        h("button", { id: "create-room", onclick: () => { this.menu.hidden = true; this.create(); } }, "Create a room from this session (students join with a code)"),
        h("div", { class: "dd-title" }, "Join a class"),
        h("div", { class: "join-row" }, codeIn, h("button", { class: "primary", onclick: go }, "Join")));
      if (this.forkedFrom) kids.push(h("button", { onclick: () => { this.menu.hidden = true; this.join(this.forkedFrom); } }, "Back to the live room " + this.forkedFrom));
    }
    this.menu.replaceChildren(...kids);
    this.menu.hidden = false;
    if (!this.inRoom()) codeIn.focus();
  },

  // create makes a room whose cluster starts as this page's session.
  async create() {
    let script = "";
    try { script = kafkasim.script(); } catch (e) { /* nothing loaded: the default cluster */ }
    try {
      const r = await fetch("api/rooms", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ name: App.scenarioName || "class", scenario: script, speed: 1 }) });
      const info = await r.json();
      if (!r.ok) throw new Error(info.message || r.statusText);
      sessionStorage.setItem(this.tokenKey(info.code), info.token);
      await this.join(info.code);
      this.showQR();
    } catch (e) { UI.toast("The room was not created: " + e.message); }
  },

  // join follows a room: a teacher's page (its token kept in this tab's
  // sessionStorage) drives it, any other page watches.
  async join(code) {
    code = String(code || "").trim().toUpperCase();
    if (!/^[A-Z0-9]{3,12}$/.test(code)) { UI.toast("A room code is 3 to 12 letters and digits, like K7M2QX."); return false; }
    try {
      const r = await fetch("api/rooms/" + encodeURIComponent(code));
      if (!r.ok) throw new Error(r.status === 404 ? "there is no room " + code + " on this server (check the code with your teacher)" : (await r.json().catch(() => ({}))).message || r.statusText);
      this.info = await r.json();
    } catch (e) { UI.toast("Cannot join: " + e.message); return false; }
    if (typeof Lessons !== "undefined" && Lessons.lesson) Lessons.close(); // the room's lesson replaces the page's own
    const ws = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + location.pathname.replace(/[^/]*$/, "") + "api/rooms/" + code + "/ws";
    const token = sessionStorage.getItem(this.tokenKey(code)) || "";
    try { this.status = this.call("liveConnect", ws, token); } catch (e) { UI.toast("Cannot join: " + e.message); return false; }
    this.code = code;
    this.forkedFrom = "";
    this.removeForkBanner();
    history.replaceState(null, "", location.pathname + "?room=" + code);
    App.setName("room " + code + (this.info.scenario ? ": " + this.info.scenario : ""));
    this.render();
    return true;
  },

  leave() {
    this.call("liveLeave");
    this.status = { phase: "local" };
    this.code = "";
    history.replaceState(null, "", location.pathname);
    App.setName(kafkasim.name || "your session");
    this.render();
  },

  // fork keeps the room's cluster as this page's own session, paused at
  // the room's moment: what the student does stays here.
  fork() {
    const code = this.code;
    this.leave();
    kafkasim.name = "your copy of room " + code;
    App.setName(kafkasim.name);
    kafkasim._changed("load");
    this.forkedFrom = code;
    this.forkBanner(code);
    UI.echo(`forked room ${code} at t=${fmtTime(kafkasim.now())}: this copy is yours (play, break, rewind); the room goes on without it`, "note");
  },
  forkBanner(code) {
    this.removeForkBanner();
    const b = h("div", { id: "live-fork" }, h("span", {}, "Your own copy of room " + code + ": nothing you do here reaches the class. "),
      h("button", { class: "primary", onclick: () => this.join(code) }, "Back to the live room"));
    document.getElementById("canvas-wrap").append(b);
  },
  removeForkBanner() { const b = document.getElementById("live-fork"); if (b) b.remove(); },

  // send sends a classroom message; onReply gets its result or error.
  send(msg, onReply) {
    try {
      const id = this.call("liveSend", JSON.stringify(msg));
      if (onReply) this.pending.set(id, onReply);
      return id;
    } catch (e) { UI.toast(e.message); return 0; }
  },

  // poll runs every frame: the engine's notices (messages from the room).
  poll() {
    if (!kafkasim._engine()) return;
    let st;
    try { st = this.call("liveStatus"); } catch (e) { return; }
    const was = this.status;
    this.status = st;
    if (!st.live) { if (was.live) this.render(); return; }
    let notes = [];
    try { notes = this.call("liveTake"); } catch (e) { return; }
    let dirty = was.phase !== st.phase || was.role !== st.role || was.clients !== st.clients || was.speed !== st.speed;
    for (const m of notes) {
      dirty = true;
      this.onNotice(m);
    }
    if (dirty) this.render();
    if (this.inRoom()) this.drawClock();
  },

  onNotice(m) {
    const reply = m.id && this.pending.get(m.id);
    if (reply) { this.pending.delete(m.id); reply(m); }
    switch (m.type) {
      case "live":
        if (m.phase === "live") { kafkasim._changed("load"); App.setName("room " + this.code + (this.status.scenario ? ": " + this.status.scenario : "")); }
        if (m.phase === "closed" || m.phase === "diverged" || m.phase === "unreplayable") UI.toast(m.note);
        break;
      case "result":
        if (m.of === "auth") UI.echo(`you drive room ${this.code}: the console, play, pause and speed act on the room`, "note");
        if (m.of === "cmd") {
          for (const l of m.lines || []) {
            if (l.error) UI.echo(`room, line ${l.line}: ${l.error}`, "err");
            else if (l.failed) UI.echo(`room, line ${l.line}: ${l.failed}`, "err");
            else if (l.output) UI.echo(l.output, "out");
          }
        }
        break;
      case "error":
        UI.echo("room: " + m.message, "err");
        if (!reply) UI.toast(m.message);
        break;
      case "lesson":
        this.flash("The teacher moved the lesson to step " + (m.step + 1) + ".");
        break;
      case "prediction":
        this.flash("A question from the teacher: " + m.question);
        if (!this.driver()) UI.tab && this.pane.scrollIntoView({ block: "nearest" });
        break;
      case "reveal":
        this.flash("The answers are in: see the class's choices.");
        break;
    }
  },
  flash(text) {
    if (this.driver()) return;
    UI.toast(text);
  },

  drawClock() {
    const el = document.getElementById("live-lag");
    if (!el) return;
    const st = this.status;
    const lag = st.behind || 0;
    let text = st.phase === "live" ? (st.speed > 0 ? "live" : "paused by the teacher") + (lag > 500 ? ` (${fmtTime(lag)} behind)` : "") : st.phase;
    if (st.note && st.note.startsWith("catching up")) text = st.note;
    if (st.catchUps) text += ` · fell behind ${st.catchUps === 1 ? "once" : st.catchUps + " times"}: skipped ${st.skipped} batches, caught up from the room's history`;
    el.textContent = text;
    const tr = document.getElementById("live-traffic");
    if (tr) tr.textContent = this.trafficText(st.traffic);
  },

  // trafficText sums up the room's real clients' requests (the page
  // draws a sample of their messages at high rates, with xN counts).
  trafficText(t) {
    if (!t || !t.requests) return "";
    const per = Object.entries(t.perAPI || {}).sort((a, b) => b[1] - a[1]).slice(0, 3)
      .filter(([, r]) => r >= 0.5).map(([api, r]) => `${api} ${r >= 10 ? Math.round(r) : r.toFixed(1)}/s`);
    return `real clients: ${t.requests.toLocaleString("en")} requests` + (t.rate >= 0.5 ? `, ${Math.round(t.rate)}/s now` : "") + (per.length ? ` (${per.join(", ")})` : "");
  },

  // applyLock turns the driving controls off, each saying why, while this
  // page watches a room without its token, and back on otherwise (a
  // fork, the teacher, leaving). A control's own title comes back.
  applyLock() {
    const why = this.inRoom() && !this.driver() ? this.lockText : "";
    UI.lock = why;
    document.body.classList.toggle("live-locked", !!why);
    for (const el of document.querySelectorAll(this.driving.join(","))) {
      if (why && !("lockTitle" in el.dataset)) {
        el.dataset.lockTitle = el.title;
        if (el.placeholder !== undefined) { el.dataset.lockPlaceholder = el.placeholder; el.placeholder = why; }
        el.disabled = true;
        el.title = why;
      } else if (!why && "lockTitle" in el.dataset) {
        el.disabled = false;
        el.title = el.dataset.lockTitle;
        if ("lockPlaceholder" in el.dataset) el.placeholder = el.dataset.lockPlaceholder;
        delete el.dataset.lockTitle;
        delete el.dataset.lockPlaceholder;
      }
    }
    if (why) { const m = document.getElementById("menu"); if (!m.hidden && !m.querySelector(".menu-lock")) m.hidden = true; }
  },

  // --- the bar under the timeline ------------------------------------------
  render() {
    const st = this.status;
    document.body.classList.toggle("live-on", !!st.live);
    this.applyLock();
    if (!st.live) {
      if (!this.bar.hidden) document.getElementById("time-hint").textContent = this.localHint;
      this.bar.hidden = true;
      this.pane.hidden = true;
      return;
    }
    if (this.bar.hidden) this.localHint = document.getElementById("time-hint").textContent;
    const teacher = st.role === "driver";
    const students = Math.max(0, (st.watchers || 0));
    const kids = [
      h("span", { class: "live-dot " + st.phase, title: st.phase }),
      h("strong", {}, "Room " + this.code),
      h("span", { id: "live-lag", class: "live-state" }, st.phase),
      h("span", { id: "live-traffic", class: "live-traffic", title: "Requests of real Kafka clients (kcat, franz-go, ...) the room received, per API, per second of the room's time" }, this.trafficText(st.traffic)),
      h("span", { class: "live-role " + (teacher ? "drive" : "watch") }, teacher
        ? "You are the teacher: what you do here happens in every student's page."
        : "You are watching: the teacher drives this room, so its controls are off here. Fork my own copy to try it yourself."),
      h("span", { class: "live-count" }, teacher
        ? (students === 0 ? "no students yet" : students === 1 ? "1 student" : students + " students")
        : (students <= 1 ? "only you so far" : `you and ${students - 1} other${students === 2 ? "" : "s"}`)),
      h("span", { class: "live-spacer" }),
    ];
    if (teacher) {
      kids.push(h("button", { class: "live-code", title: "Show the join code and QR code to the class", onclick: () => this.showQR() }, "Join code ", h("b", {}, this.code)),
        h("button", { onclick: () => this.send({ type: "reset" }, (m) => m.type === "result" && UI.toast("The room is back at the start of its scenario.")) }, "Reset"));
    } else {
      kids.push(h("button", { class: "primary", id: "live-fork-btn", onclick: () => this.fork() }, "Fork my own copy"));
    }
    kids.push(h("button", { onclick: () => this.leave() }, "Leave"));
    if (st.note && st.phase !== "live") kids.push(h("div", { class: "live-note" }, st.note));
    this.bar.replaceChildren(...kids);
    this.bar.hidden = false;
    document.getElementById("time-hint").textContent = teacher
      ? "live: the room's clock (play, pause and speed act on the room); it cannot be rewound"
      : "live: the room's clock, run by the teacher; fork your own copy to rewind";
    this.renderPane();
  },

  showQR() {
    const join = location.origin + location.pathname + "?room=" + this.code;
    const box = document.getElementById("dialog");
    box.replaceChildren(h("div", { class: "qr-box" },
      h("div", { class: "qr-title" }, "Join the class"),
      h("img", { src: "api/rooms/" + this.code + "/qr.svg", alt: "QR code of " + join, width: "260", height: "260" }),
      h("div", { class: "qr-code" }, this.code),
      h("div", { class: "qr-url mono" }, join),
      h("div", { class: "note" }, "Students open the link or scan the code, or choose Classroom ▸ Join and type the code."),
      h("button", { class: "primary", onclick: () => (box.hidden = true) }, "Close")));
    box.hidden = false;
  },

  // --- the classroom pane (right column) -------------------------------------
  renderPane() {
    const st = this.status;
    const teacher = st.role === "driver";
    const kids = [h("header", { class: "cp-head" }, h("span", {}, teacher ? "Teaching room " + this.code : "Class " + this.code))];
    const pred = this.predictionBox(st, teacher);
    kids.push(pred); // the question first: it is what the class does now
    kids.push(teacher ? this.teacherLesson() : this.studentLesson(st.lesson));
    if (teacher) kids.push(this.askBox());
    const open = this.pane.querySelector("details.cp-ask[open]");
    this.pane.replaceChildren(...kids.filter(Boolean));
    if (open && teacher) { const d = this.pane.querySelector("details.cp-ask"); d.open = true; d.replaceWith(open); }
    this.pane.hidden = false;
    // A new question or its answers: in view, whatever was scrolled.
    const key = st.prediction ? st.prediction.prediction + (st.reveal ? "r" : "") : "";
    if (pred && key !== this.shownPred) this.pane.scrollTop = 0;
    this.shownPred = key;
  },

  // localLesson is the page's copy of the lesson a step is of (its
  // narration rendered): a bundled one, or the room's own lesson file
  // (rendered by the server's lesson parser), fetched once.
  localLesson(ls) {
    if (!ls || !ls.lesson) return null;
    const lang = (typeof Lessons !== "undefined" && Lessons.lang) || "en";
    const key = ls.file ? "room/" + this.code + "/" + ls.file : lang + "/" + ls.lesson;
    if (!(key in this.lessonCache)) {
      this.lessonCache[key] = null; // fetched once; the pane redraws when it comes
      const got = ls.file
        ? fetch("api/rooms/" + encodeURIComponent(this.code) + "/lesson?file=" + ls.file).then((r) => (r.ok ? r.json() : Promise.reject(new Error(r.statusText))))
        : kafkasim.lessons.get(lang, ls.lesson);
      got.then((l) => { this.lessonCache[key] = l; this.render(); }, () => {});
    }
    return this.lessonCache[key];
  },

  studentLesson(ls) {
    if (!ls) return h("div", { class: "cp-body muted" }, "The teacher has not started a lesson. Watch the cluster: the events appear under the picture and in the Events tab.");
    const l = this.localLesson(ls);
    const body = h("div", { class: "cp-body" },
      h("div", { class: "cp-title" }, ls.title || ls.lesson),
      h("div", { class: "ls-count" }, `Step ${ls.step + 1} of ${ls.steps || "?"}` + (ls.kind ? " · " + ls.kind : "")));
    const st = l && l.steps[ls.step];
    if (st) {
      const md = h("div", { class: "md" }); md.innerHTML = st.narration || ""; // goldmark's HTML, raw HTML omitted
      body.append(md);
      if (st.kind === "act" && st.task) { const t = h("div", { class: "ls-task" }); t.innerHTML = "<strong>The teacher will: </strong>" + st.task; body.append(t); }
    } else if (ls.text) body.append(h("div", { class: "cp-text" }, ls.text));
    return body;
  },

  teacherLesson() {
    const box = h("div", { class: "cp-body" });
    const lang = (typeof Lessons !== "undefined" && Lessons.lang) || "en";
    if (!this.lesson) {
      const ix = this.lessonIndex || [];
      if (!this.lessonIndex) {
        this.lessonIndex = [];
        kafkasim.lessons.index(lang).then((x) => { this.lessonIndex = x; this.render(); }, (e) => console.warn("lessons:", e));
      }
      const sel = h("select", { id: "cp-lesson" }, ...ix.map((s) => h("option", { value: s.id }, s.title)));
      box.append(h("div", { class: "cp-title" }, "Teach a lesson"),
        h("div", { class: "note" }, "Every student's page follows the step you show; predictions open for everyone."),
        h("div", { class: "join-row" }, sel, h("button", { class: "primary", id: "cp-start", onclick: () => this.startLesson(sel.value) }, "Start")),
        h("div", { class: "join-row" }, h("button", { id: "cp-own", title: "A lesson file of your own (Markdown, as docs/lessons.md describes): the server checks it, then you step it like a bundled one", onclick: () => this.ownInput.click() }, "Open my own lesson file…")));
      if (this.ownError) box.append(h("div", { class: "ls-warn", id: "cp-own-error" }, this.ownError));
      return box;
    }
    const { l, i } = this.lesson;
    const st = l.steps[i];
    const md = h("div", { class: "md" }); md.innerHTML = st.narration || "";
    const run = st.commands.filter((c) => !c.text.startsWith("expect "));
    const label = this.lesson.running ? "Running…" : this.lesson.ran ? "Ran ✓" : st.kind === "act" ? "Show me ▶" : "Run ▶";
    box.append(h("div", { class: "cp-title" }, l.title), h("div", { class: "ls-count" }, `Step ${i + 1} of ${l.steps.length} · ${st.kind}`),
      h("div", { class: "ls-nav cp-nav" },
        h("button", { disabled: i === 0 ? true : undefined, onclick: () => this.showStep(i - 1) }, "← Back"),
        h("button", { class: "primary", id: "cp-run", disabled: this.lesson.running || !run.length ? true : undefined, onclick: () => this.runStep() }, label),
        h("button", { id: "cp-next", disabled: i + 1 >= l.steps.length ? true : undefined, onclick: () => this.showStep(i + 1) }, "Next →"),
        h("button", { class: "small", title: "Stop teaching this lesson", onclick: () => { this.lesson = null; this.render(); } }, "×")),
      md);
    if (st.kind === "predict") { const a = h("div", { class: "ls-ask" }); a.innerHTML = st.ask; box.append(a); }
    if (st.kind === "act") { const a = h("div", { class: "ls-task" }); a.innerHTML = "<strong>Task: </strong>" + st.task; box.append(a); }
    if (run.length) box.append(h("details", { class: "ls-cmds" }, h("summary", {}, "Commands this step runs in the room"), h("pre", { class: "mono" }, run.map((c) => c.text).join("\n"))));
    return box;
  },

  // startOwnLesson makes a lesson file of the teacher's own the room's
  // lesson (the server parses it with the bundled lessons' parser:
  // server/lesson.go) and starts teaching it; a file that does not parse
  // says its line in the pane and changes nothing.
  async startOwnLesson(text) {
    const token = sessionStorage.getItem(this.tokenKey(this.code)) || "";
    const lang = /[\u4e00-\u9fff]/.test(String(text).slice(0, 4000)) ? "zh" : "en";
    let f;
    try {
      const r = await fetch("api/rooms/" + encodeURIComponent(this.code) + "/lesson?lang=" + lang, { method: "PUT",
        headers: { "Content-Type": "text/markdown", Authorization: "Bearer " + token }, body: String(text) });
      f = await r.json().catch(() => ({ message: r.statusText }));
      if (!r.ok) throw new Error(f.message || r.statusText);
    } catch (e) {
      this.ownError = "Your lesson file does not open: " + e.message + ". The room's lesson is unchanged.";
      this.render();
      return false;
    }
    this.ownError = "";
    this.lessonCache["room/" + this.code + "/" + f.file] = f.lesson;
    this.lesson = { l: f.lesson, i: 0, file: f.file };
    this.showStep(0);
    return true;
  },

  async startLesson(id) {
    const lang = (typeof Lessons !== "undefined" && Lessons.lang) || "en";
    let l;
    try { l = await kafkasim.lessons.get(lang, id); } catch (e) { UI.toast(e.message); return; }
    this.lesson = { l, i: 0 };
    this.showStep(0);
  },

  // showStep puts the room where the lesson is before step i (its earlier
  // steps replayed at once), shows the step on every page and, for a
  // predict step, opens its question.
  showStep(i) {
    const { l, file } = this.lesson;
    const st = l.steps[i];
    this.lesson = { l, i, ran: false, file };
    const script = kafkasim.lessons.replay(l, i);
    if (script) this.send({ type: "load", ksim: script, name: l.title, instant: true });
    this.send({ type: "lesson", lesson: { lesson: l.id, step: i, steps: l.steps.length, title: l.title, kind: st.kind, text: plain(st.narration), file } });
    if (st.kind === "predict") {
      const correct = st.choices.findIndex((c) => c.correct);
      this.send({ type: "predict", question: plain(st.ask), choices: st.choices.map((c) => plain(c.label)), correct: correct >= 0 ? correct : undefined });
    }
    this.render();
  },

  // runStep plays the step's commands in the room (waits follow its
  // clock, so the class watches); a predict step's answers are revealed
  // when they are done.
  runStep() {
    const { l, i } = this.lesson;
    const st = l.steps[i];
    const lines = st.commands.map((c) => c.text);
    if (!lines.length) return;
    this.lesson.running = true;
    const done = (m) => {
      if (!this.lesson || this.lesson.l !== l || this.lesson.i !== i) return;
      this.lesson.running = false;
      this.lesson.ran = m.type === "result";
      if (m.type === "result" && st.kind === "predict" && this.status.prediction && !this.status.reveal) this.send({ type: "reveal" });
      this.render();
    };
    if (lines[0].startsWith("cluster")) this.send({ type: "load", ksim: lines.join("\n"), name: l.title }, done);
    else this.send({ type: "cmd", text: lines.join("\n") }, done);
    this.render();
  },

  // predictionBox: the open question (students answer; the teacher sees
  // the answers come in) and, after the reveal, the class's answers.
  predictionBox(st, teacher) {
    const p = st.prediction;
    if (!p) return null;
    const revealed = st.reveal && st.reveal.prediction === p.prediction ? st.reveal : null;
    const tally = revealed || (teacher ? st.tally : null);
    const box = h("div", { class: "cp-pred" + (revealed ? " revealed" : "") }, h("div", { class: "cp-q" }, p.question));
    const total = tally ? Math.max(1, tally.answered) : 1;
    p.choices.forEach((c, k) => {
      const mine = st.answer === k;
      const right = revealed && revealed.correct === k;
      const n = tally ? tally.counts[k] || 0 : 0;
      const row = h("div", { class: "cp-choice" + (mine ? " mine" : "") + (right ? " right" : "") + (revealed && mine && revealed.correct !== undefined && !right ? " wrong" : "") });
      if (!teacher && !revealed) row.append(h("button", { class: mine ? "on" : "", onclick: () => this.answer(k) }, String.fromCharCode(65 + k)));
      else row.append(h("span", { class: "cp-letter" }, String.fromCharCode(65 + k)));
      row.append(h("span", { class: "cp-label" }, c, mine ? h("span", { class: "cp-you" }, " your answer") : null));
      if (tally) row.append(h("span", { class: "cp-bar" }, h("span", { style: `width:${Math.round((n / total) * 100)}%` })), h("span", { class: "cp-n" }, String(n)));
      box.append(row);
    });
    if (tally) box.append(h("div", { class: "note" }, `${tally.answered} of ${tally.watchers} answered` + (revealed ? "" : " (only you see this until you reveal)")));
    if (revealed && !teacher) {
      if (st.answer === undefined || st.answer === null) box.append(h("div", { class: "note" }, "You did not answer this one."));
      else if (revealed.correct !== undefined && revealed.correct !== null) box.append(h("div", { class: "ls-verdict " + (st.answer === revealed.correct ? "ok" : "no") }, st.answer === revealed.correct ? "Right." : "Not quite: the answer is " + String.fromCharCode(65 + revealed.correct) + "."));
      // the lesson's explanation, when the page has the lesson
      const ls = st.lesson, l = this.localLesson(ls), step = l && l.steps[ls.step];
      if (step && step.kind === "predict" && step.why) { const w = h("div", { class: "ls-why" }); w.innerHTML = step.why; box.append(w); }
    } else if (!teacher) box.append(h("div", { class: "note" }, st.answer === undefined || st.answer === null ? "Pick what you think will happen." : "Your answer is in; you can change it until the teacher reveals."));
    if (teacher && !revealed) box.append(h("button", { class: "primary", id: "cp-reveal", onclick: () => this.send({ type: "reveal" }) }, "Reveal the answers to the class"));
    return box;
  },

  answer(k) {
    try { this.call("liveAnswer", k); } catch (e) { UI.toast(e.message); }
    this.render();
  },

  // askBox: an ad-hoc question for the class.
  askBox() {
    const q = h("input", { id: "ask-q", placeholder: "a question for the class", maxlength: "1000" });
    const ch = h("textarea", { id: "ask-choices", rows: "3", placeholder: "one answer per line (2 to 8); start the right one with *" });
    return h("details", { class: "cp-ask" }, h("summary", {}, "Ask the class a question"), q, ch,
      h("button", { id: "ask-send", onclick: () => {
        const lines = ch.value.split("\n").map((s) => s.trim()).filter(Boolean);
        const correct = lines.findIndex((s) => s.startsWith("*"));
        this.send({ type: "predict", question: q.value.trim(), choices: lines.map((s) => s.replace(/^\*\s*/, "")), correct: correct >= 0 ? correct : undefined });
      } }, "Ask"));
  },
};

// plain is an HTML fragment's text (the lesson's Markdown rendered).
function plain(html) {
  const d = document.createElement("div");
  d.innerHTML = html || "";
  return (d.textContent || "").replace(/\s+/g, " ").trim();
}

window.Live = Live;
