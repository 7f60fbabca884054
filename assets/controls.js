// controls.js: the top bar, the console, the broker/client menus, the
// action dialogs, keyboard shortcuts and the help overlay. Every action
// is a scenario-language command run through kafkasim.command, echoed in
// the console, so the learner sees (and can type) what each click does.
"use strict";

const UI = {
  selection: null, // scene Ref of the selected element
  view: "cluster",
  span: 2000, // virtual ms the space-time view shows
  hidden: new Set(),
  history: [],
  histPos: 0,
  divergeAt: -1,
  dirty: true, // panels need a refresh
  // lock says why this page may not drive its cluster ("" when it may):
  // a room watched without its token (live.js sets it). Every path that
  // would drive it (run, seek, play, speed, step, load, keys, menus)
  // checks it and shows why instead; views, panels and stories stay.
  lock: "",
  // locked toasts the lock's reason; true when the page is locked.
  locked() {
    if (this.lock) this.toast(this.lock);
    return !!this.lock;
  },

  // run executes one command line, echoing it and its result.
  run(line, quiet) {
    line = line.trim();
    if (!line) return null;
    if (this.locked()) return null;
    if (!quiet) this.echo("> " + line, "cmd");
    const r = kafkasim._soft("command", line);
    kafkasim._changed("command");
    if (r.error) { this.echoError(line, r.error); return null; }
    const res = r.ok;
    if (res.error) { this.echoError(line, res.error); return res; }
    if (res.output) this.echo(res.output.replace(/\n$/, ""), "out");
    if (res.forked) {
      this.echo(`acting in the past started branch ${res.branch}; the old one is kept (Branches tab, b)`, "note");
      this.toast(`New branch ${res.branch}: the past changed. Compare in the Branches tab.`);
    }
    this.dirty = true;
    App.persist();
    return res;
  },
  echo(text, cls) {
    const out = document.getElementById("console-out");
    out.append(h("div", { class: "line " + (cls || "") }, text));
    while (out.childElementCount > 300) out.firstChild.remove();
    out.scrollTop = out.scrollHeight;
  },
  echoError(line, err) {
    const out = document.getElementById("console-out");
    const row = h("div", { class: "line err" });
    if (err.col) {
      row.append(h("div", { class: "caret-line" }, "  " + line), h("div", { class: "caret-line" }, "  " + " ".repeat(Math.max(0, err.col - 1)) + "^"));
      row.append(h("div", {}, `column ${err.col}: ${err.msg}`));
    } else row.append(h("div", {}, "error: " + err.msg));
    out.append(row);
    out.scrollTop = out.scrollHeight;
  },
  toast(text) {
    const t = document.getElementById("toast");
    t.textContent = text;
    t.hidden = false;
    clearTimeout(this._toast);
    this._toast = setTimeout(() => (t.hidden = true), 4000);
  },
  seek(ms) {
    if (this.locked()) return;
    try { kafkasim.seek(Math.max(0, Math.round(ms))); } catch (e) { this.toast(e.message); }
    this.dirty = true;
    App.persist();
  },
  tab(name) {
    for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("on", b.dataset.tab === name);
    for (const p of document.querySelectorAll(".pane")) p.classList.toggle("on", p.id === "pane-" + name);
    this.currentTab = name;
    this.dirty = true;
    App.refreshPanels(true);
  },
  currentTab: "story",
  openStory(value) {
    if (!value) return;
    Panels.story = value;
    this.tab("story");
  },
  select(ref) {
    this.selection = ref;
    App.sceneDirty = true;
  },
  showEvent(seq) {
    this.tab("events");
    document.getElementById("event-filter").value = "";
    Panels.renderEvents(true);
    const el = document.getElementById("ev-" + seq);
    if (el) { el.scrollIntoView({ block: "center" }); el.classList.add("flash"); setTimeout(() => el.classList.remove("flash"), 2500); }
    else this.toast("that event is no longer in the (bounded) event log");
  },
  switchBranch(id) {
    if (this.locked()) return;
    try { kafkasim.switchBranch(id); } catch (e) { this.toast(e.message); return; }
    this.toast(`Now on branch ${id}`);
    this.dirty = true;
    App.persist();
  },
  markDivergence(at) { this.divergeAt = at; App.drawMarks(true); },

  // ---- menus ----
  closeMenus() {
    document.getElementById("menu").hidden = true;
    document.getElementById("dialog").hidden = true;
    document.getElementById("scenario-dropdown").hidden = true;
  },
  menuOpen() {
    return !document.getElementById("menu").hidden || !document.getElementById("dialog").hidden;
  },
  menuAt(x, y, title, items) {
    hideExplain();
    const m = document.getElementById("menu");
    m.replaceChildren(h("div", { class: "menu-title" }, title));
    if (this.lock) m.append(h("div", { class: "menu-lock" }, this.lock));
    for (const it of items) {
      if (!it) continue;
      const locked = !!this.lock && !it.view; // an item marked view only shows something
      m.append(h("button", { disabled: it.disabled || locked, title: locked ? this.lock : it.title || "", onclick: () => { this.closeMenus(); it.run(); } },
        h("span", {}, it.label), it.key ? h("kbd", {}, it.key) : null));
    }
    m.hidden = false;
    m.style.left = Math.min(window.innerWidth - m.offsetWidth - 8, x) + "px";
    m.style.top = Math.min(window.innerHeight - m.offsetHeight - 8, y) + "px";
  },
  brokerState(id) {
    const b = kafkasim.snapshot().brokers.find((x) => x.id === id);
    return b ? b.state : "";
  },
  brokerMenu(id, x, y) {
    const st = this.brokerState(id);
    const up = st === "up", down = st === "crashed" || st === "poweredoff";
    this.menuAt(x, y, `broker ${id} (${st})`, [
      { label: "Crash (process killed)", key: "c", disabled: !up && st !== "paused", run: () => this.run(`crash broker ${id}`), title: "the page cache survives" },
      { label: "Power off", key: "o", disabled: down, run: () => this.run(`poweroff broker ${id}`), title: "unflushed records are lost" },
      { label: "Pause (GC pause)", key: "p", disabled: !up, run: () => this.run(`pause broker ${id}`) },
      { label: "Resume", key: "u", disabled: st !== "paused", run: () => this.run(`resume broker ${id}`) },
      { label: "Restart", key: "r", disabled: !down, run: () => this.run(`restart broker ${id}`) },
      { label: "Isolate (split it off)", key: "i", run: () => this.isolate(id) },
      { label: "Show its logs (Files)", view: true, run: () => { Panels.files.broker = id; this.tab("files"); } },
    ]);
  },
  isolate(id) {
    const snap = kafkasim.snapshot();
    const others = snap.brokers.map((b) => String(b.id)).filter((b) => b !== String(id));
    for (const p of snap.producers) others.push(p.name);
    for (const c of snap.consumers) if (c.alive) others.push(c.name);
    others.push(snap.metadata === "zk" ? "zk" : "controller");
    this.run(`net split ${id} | ${others.join(",")}`);
  },
  producerMenu(name, x, y) {
    this.menuAt(x, y, `producer ${name}`, [
      { label: "Produce a record…", key: "e", run: () => this.produceDialog(name) },
      { label: "Produce a burst of 10", key: "E", run: () => this.produceQuick(name, 10) },
      { label: "Change a setting…", key: "g", run: () => this.settingsDialog("producer", name) },
    ]);
  },
  consumerMenu(name, x, y) {
    this.menuAt(x, y, `consumer ${name}`, [
      { label: "Poll now", run: () => this.run(`poll ${name}`) },
      { label: "Commit now", run: () => this.run(`commit ${name}`) },
      { label: "Close (leaves the group)", key: "x", run: () => this.run(`close ${name}`) },
      { label: "Crash (no goodbye)", run: () => this.run(`crash consumer ${name}`) },
    ]);
  },

  // ---- dialogs ----
  dialog(title, fields, onOK, note) {
    const d = document.getElementById("dialog");
    const inputs = {};
    const form = h("form", { onsubmit: (e) => { e.preventDefault(); const v = {}; for (const k in inputs) v[k] = inputs[k].type === "checkbox" ? inputs[k].checked : inputs[k].value.trim(); this.closeMenus(); onOK(v); } });
    form.append(h("div", { class: "menu-title" }, title));
    if (note) form.append(h("p", { class: "note" }, note));
    for (const f of fields) {
      let input;
      if (f.options) input = h("select", { name: f.name }, f.options.map((o) => h("option", { value: o, selected: o === f.value }, o)));
      else input = h("input", { name: f.name, value: f.value || "", placeholder: f.placeholder || "", type: f.type || "text" });
      inputs[f.name] = input;
      form.append(h("label", { "data-explain": f.explain }, h("span", {}, f.label), input));
    }
    form.append(h("div", { class: "buttons" }, h("button", { type: "submit", class: "primary" }, "Run"), h("button", { type: "button", onclick: () => this.closeMenus() }, "Cancel")));
    d.replaceChildren(form);
    d.hidden = false;
    const first = form.querySelector("input,select");
    if (first) first.focus();
  },
  nextValue() {
    const n = (kafkasim.metrics().producers || []).reduce((a, p) => a + p.sent, 0) + 1;
    return "r" + n;
  },
  defaultTopic() {
    const t = kafkasim.snapshot().topics.find((t) => !t.internal);
    return t ? t.name : "";
  },
  produceQuick(producer, count) {
    const snap = kafkasim.snapshot();
    producer = producer || (snap.producers[0] && snap.producers[0].name);
    const topic = this.defaultTopic();
    if (!producer || !topic) { this.produceDialog(); return; }
    const v = this.nextValue();
    this.run(`produce ${producer} ${topic} value=${v}${count > 1 ? " count=" + count : ""}`);
  },
  produceDialog(producer) {
    const snap = kafkasim.snapshot();
    const names = snap.producers.map((p) => p.name);
    this.dialog("Produce", [
      { name: "producer", label: "producer", options: names.length ? names.concat(["(new producer)"]) : ["(new producer)"], value: producer || names[0], explain: "producer" },
      { name: "acks", label: "acks (for a new producer)", options: ["1", "all", "0"], value: "1", explain: "producer" },
      { name: "topic", label: "topic", value: this.defaultTopic() },
      { name: "value", label: "value", value: this.nextValue(), explain: "record" },
      { name: "key", label: "key (optional)", value: "" },
      { name: "count", label: "count (a burst)", value: "1", type: "number" },
    ], (v) => {
      let p = v.producer;
      if (p === "(new producer)") {
        p = "p" + (names.length + 1);
        while (names.includes(p)) p += "x";
        if (!this.run(`producer ${p} acks=${v.acks}`)) return;
      }
      let line = `produce ${p} ${v.topic} value=${v.value}`;
      if (v.key) line += ` key=${v.key}`;
      if (Number(v.count) > 1) line += ` count=${Number(v.count)}`;
      this.run(line);
    }, "acks is a producer setting: to compare acks=1 with acks=all, make a producer with each.");
  },
  consumerDialog() {
    const snap = kafkasim.snapshot();
    let n = snap.consumers.length + 1, name = "c" + n;
    while (snap.consumers.find((c) => c.name === name)) name = "c" + ++n;
    const groups = snap.groups.map((g) => g.name);
    this.dialog("Add a consumer", [
      { name: "name", label: "name", value: name, explain: "consumer" },
      { name: "group", label: "group", value: groups[0] || "g", explain: "group" },
      { name: "topics", label: "topics (comma-separated)", value: this.defaultTopic() },
    ], (v) => this.run(`consumer ${v.name} group=${v.group}${v.topics ? " topics=" + v.topics : ""}`));
  },
  splitDialog() {
    const snap = kafkasim.snapshot();
    const ids = snap.brokers.map((b) => b.id);
    const first = ids.slice(0, 1), rest = ids.slice(1);
    const hosts = snap.producers.map((p) => p.name).concat(snap.consumers.filter((c) => c.alive).map((c) => c.name));
    this.dialog("Split the network", [
      { name: "a", label: "side A", value: first.concat(hosts).concat([snap.metadata === "zk" ? "zk" : "controller"]).join(",") },
      { name: "b", label: "side B", value: rest.join(",") },
    ], (v) => this.run(`net split ${v.a} | ${v.b}`), "Hosts are broker ids, client names, zk (ZooKeeper) or controller (KRaft). Hosts on different sides cannot talk; hosts in neither side talk to everyone.");
  },
  settingsDialog(kind, name) {
    const topic = this.defaultTopic();
    this.dialog("Change a setting", [
      { name: "key", label: "setting (Kafka's name)", value: kind === "producer" ? "acks" : "min.insync.replicas", placeholder: "min.insync.replicas, unclean.leader.election.enable, replica.lag.time.max.ms, net.latency.ms, …" },
      { name: "value", label: "value", value: kind === "producer" ? "all" : "2" },
    ], (v) => this.run(`set ${v.key}=${v.value}`),
      "set changes cluster-wide defaults: broker settings apply at once, topic settings to topics without their own override, client settings (acks, retries, …) to clients created afterwards. " + (topic ? `Per-topic: topic create … ${"min.insync.replicas=2"}.` : ""));
  },

  // ---- help ----
  shortcuts: [
    ["Space", "play / pause"], ["→ or .", "step to the next event"], ["←", "back to the previous event"],
    ["Home / End", "to the start / to the furthest moment played"], ["[ / ]", "slower / faster"],
    ["c o p u r i", "crash, power off, pause, resume, restart, isolate the selected broker"],
    ["h", "heal the network"], ["s", "split the network…"], ["e / E", "produce a record / a burst of 10"],
    ["a / x", "add a consumer / close the selected consumer"], ["g", "change a setting…"],
    ["v", "cluster / space-time / both"], ["1 … 9", "panel tabs"], ["b", "branches"], ["f", "findings"],
    [": or /", "the scenario console"], ["m", "the scenario menu"], ["?", "this help"], ["Esc", "close menus and help"],
  ],
  toggleHelp(force) {
    const o = document.getElementById("help");
    const show = force !== undefined ? force : o.hidden;
    if (!show) { o.hidden = true; return; }
    o.replaceChildren(h("div", { class: "help-box" },
      h("button", { class: "small close", onclick: () => this.toggleHelp(false) }, "×"),
      h("h2", {}, "kafkasim: keys and how it works"),
      h("table", { class: "keys" }, this.shortcuts.map(([k, d]) => h("tr", {}, h("td", {}, h("kbd", {}, k)), h("td", {}, d)))),
      h("h3", {}, "How it works"),
      h("ul", {},
        h("li", {}, "The whole cluster is simulated in your browser by kafkasim's deterministic core: virtual time, one seed. The same session always replays the same way."),
        h("li", {}, "Click a broker for its menu; click a record for its life story; hover anything for what it is and which setting governs it."),
        h("li", {}, "Drag the timeline back to rewind (the past is replayed from the seed). Acting in the past starts a new branch; compare branches in the Branches tab."),
        h("li", {}, "The console takes scenario commands (the same language as .ksim files and kafkasim run); errors point at the column."),
        h("li", {}, "Scenario ▾ has the bundled examples, Open/Export .ksim and a share link that opens this session at this moment.")),
      h("p", { class: "note" }, "Colour-blind friendly: states differ by shape as well as colour (solid = committed, hatched = uncommitted, dot = page cache only, cross = lost).")));
    o.hidden = false;
  },

  // ---- keyboard ----
  // viewKeys change only what this page shows: they work when locked.
  viewKeys: new Set(["v", "b", "f", "m", "?", "Escape"]),
  onKey(ev) {
    const t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) {
      if (ev.key === "Escape") { t.blur(); this.closeMenus(); }
      return false;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return false;
    const sel = this.selection;
    const broker = sel && sel.kind === "broker" ? sel.broker : sel && sel.broker ? sel.broker : 0;
    const needBroker = (fn) => broker ? fn(broker) : this.toast("select a broker first (click it)");
    const k = ev.key;
    const act = {
      " ": () => App.togglePlay(),
      ArrowRight: () => App.step(), ".": () => App.step(), ArrowLeft: () => App.stepBack(),
      Home: () => this.seek(0), End: () => this.seek(kafkasim.state().horizon),
      "[": () => App.setSpeed(App.speed / 2), "]": () => App.setSpeed(App.speed * 2),
      c: () => needBroker((b) => this.run(`crash broker ${b}`)),
      o: () => needBroker((b) => this.run(`poweroff broker ${b}`)),
      p: () => needBroker((b) => this.run(`pause broker ${b}`)),
      u: () => needBroker((b) => this.run(`resume broker ${b}`)),
      r: () => needBroker((b) => this.run(`restart broker ${b}`)),
      i: () => needBroker((b) => this.isolate(b)),
      h: () => this.run("net heal"), s: () => this.splitDialog(),
      e: () => this.produceQuick(null, 1), E: () => this.produceQuick(null, 10),
      a: () => this.consumerDialog(),
      x: () => sel && sel.kind === "consumer" ? this.run(`close ${sel.name}`) : this.toast("select a consumer first (click it)"),
      g: () => this.settingsDialog("cluster"),
      v: () => App.cycleView(), b: () => this.tab("branches"), f: () => this.tab("findings"),
      ":": () => document.getElementById("console-in").focus(), "/": () => document.getElementById("console-in").focus(),
      m: () => App.toggleScenarioMenu(), "?": () => this.toggleHelp(), Escape: () => { this.closeMenus(); this.toggleHelp(false); },
    };
    const tabs = ["story", "findings", "files", "meta", "offsets", "metrics", "events", "branches", "script"];
    if (k >= "1" && k <= "9") { this.tab(tabs[Number(k) - 1]); return true; }
    if (act[k] && this.lock && !this.viewKeys.has(k)) { this.locked(); return true; }
    if (act[k]) { act[k](); return true; }
    return false;
  },
};
window.UI = UI;
