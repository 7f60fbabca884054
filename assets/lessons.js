// lessons.js: the lesson pane. A lesson (Markdown with ```ksim steps,
// docs/lessons.md) is parsed and rendered by the engine's wasm
// (kafkasim.lessons, wasm/app/lessons.go); this file shows it in the right
// column above the panels, runs each step's commands on the live cluster
// (waits animated by advancing virtual time frame by frame), asks the
// predictions, watches the act steps' checks, lights the step's elements
// on the canvas, and keeps progress in localStorage. Back rebuilds the
// cluster as it was before the previous step by replaying the lesson's own
// commands from its seed (kafkasim.lessons.replay), never by reloading.
"use strict";

const LessonText = {
  en: {
    lessons: "Lessons", open: "Open a lesson file…", openURL: "Open a lesson from a URL…",
    urlPrompt: "URL of a lesson (.md):", next: "Next →", back: "← Back", run: "Run ▶",
    finish: "Finish ✓", showMe: "Show me", hint: "Hint", close: "Close the lesson",
    step: (i, n) => `Step ${i} of ${n}`, pick: "Pick what you think will happen, then Run.",
    right: "Right.", wrong: "Not quite.", happened: "What happened:", running: "Running…",
    skip: "Skip the animation", task: "Your turn", done: "Done: the cluster shows it.",
    waiting: "Do it in the console below or on the canvas; time starts running with your first command, and this step completes when the cluster shows it.",
    disagree: "The cluster did not do what this lesson says (a lesson file needing a fix):",
    assertion: "This step expected", got: "but the cluster has", ranCmds: "Commands this step runs:",
    whatYouSaw: "Sources", again: "Start again", index: "All lessons", doneMark: "done",
    notLoaded: "Press Run to start the cluster.", lookAt: "On the canvas, look at:", parseError: "This lesson file has an error",
    fileOnly: "opened from a file", progress: (s, n) => `${s}/${n}`,
  },
  zh: {
    lessons: "课程", open: "打开课程文件…", openURL: "从网址打开课程…",
    urlPrompt: "课程文件（.md）的网址：", next: "下一步 →", back: "← 上一步", run: "运行 ▶",
    finish: "完成 ✓", showMe: "演示给我看", hint: "提示", close: "关闭课程",
    step: (i, n) => `第 ${i} 步，共 ${n} 步`, pick: "先选出你认为会发生的情况，再点运行。",
    right: "答对了。", wrong: "不太对。", happened: "实际发生的是：", running: "运行中…",
    skip: "跳过动画", task: "轮到你了", done: "完成：集群已经显示出来了。",
    waiting: "在下方控制台或画布上操作；你输入第一条命令后时间开始走动，集群一出现预期的状态，这一步就完成了。",
    disagree: "集群的行为和课程描述不一致（课程文件需要修正）：",
    assertion: "这一步预期", got: "但集群实际是", ranCmds: "这一步运行的命令：",
    whatYouSaw: "参考资料", again: "从头再来", index: "全部课程", doneMark: "已完成",
    notLoaded: "点“运行”启动集群。", lookAt: "请看画布上的：", parseError: "这个课程文件有错误",
    fileOnly: "从文件打开", progress: (s, n) => `${s}/${n}`,
  },
};

const Lessons = {
  lang: "en",
  lesson: null,     // the parsed lesson (kafkasim.lessons.get / parse)
  source: null,     // {kind: "bundled", id} | {kind: "url", url} | {kind: "file", text}
  i: 0,             // current step
  phase: "ready",   // ready | running | judged | acting | done | outro
  pick: -1,         // the chosen answer of a predict step
  judgement: null,
  lastErr: "",
  warnings: [],     // assertions the cluster disagreed with
  hintTimer: null,
  actTimer: null,
  anim: null,       // {target, resolve} while a wait animates
  skipping: false,
  view: "lesson",   // lesson | index

  t(k, ...a) { const v = (LessonText[this.lang] || LessonText.en)[k]; return typeof v === "function" ? v(...a) : v; },

  // --- storage -----------------------------------------------------------
  store() {
    try { return JSON.parse(localStorage.getItem("kafkasim.lessons") || "{}"); } catch (e) { return {}; }
  },
  save(patch) {
    const s = Object.assign(this.store(), patch);
    try { localStorage.setItem("kafkasim.lessons", JSON.stringify(s)); } catch (e) { console.warn("lessons: cannot save progress", e); }
    return s;
  },
  progress() { return this.store().progress || {}; },
  markProgress() {
    if (!this.lesson) return;
    const p = this.progress();
    const key = this.lesson.id;
    const cur = p[key] || { step: 0, done: false };
    cur.step = Math.max(cur.step, this.i);
    if (this.phase === "outro") cur.done = true;
    cur.steps = this.lesson.steps.length;
    p[key] = cur;
    const current = this.source && this.source.kind !== "file" ? { source: this.source, step: this.i } :
      (this.source ? { source: this.source.text.length < 200000 ? this.source : null, step: this.i } : null);
    this.save({ progress: p, lang: this.lang, current });
  },

  // --- boot --------------------------------------------------------------
  init() {
    this.lang = this.store().lang || ((navigator.language || "en").toLowerCase().startsWith("zh") ? "zh" : "en");
    const menu = h("div", { class: "menu", id: "lesson-menu" },
      h("button", { id: "lesson-btn", title: "Guided lessons (l)", onclick: () => this.showIndex() }, "Lessons"));
    document.getElementById("scenario-menu").after(menu);
    const panel = document.getElementById("panel");
    this.el = h("section", { id: "lesson", "aria-label": "lesson" });
    panel.prepend(this.el);
    this.fileInput = h("input", { type: "file", accept: ".md,text/markdown,text/plain", hidden: true, onchange: (ev) => this.openFile(ev) });
    document.body.append(this.fileInput);
    document.addEventListener("keydown", (ev) => {
      if (ev.target && /INPUT|TEXTAREA/.test(ev.target.tagName)) return;
      if (ev.key === "l" && !ev.ctrlKey && !ev.metaKey) { ev.preventDefault(); if (!UI.locked()) this.showIndex(); }
    });
    this.updateButton();
    // During an act step the clock stands still while the learner reads;
    // their first command starts it, so what they did plays out (and the
    // check can come true) without a press of Play.
    kafkasim.onChange((what) => {
      if (this.phase === "acting" && (what === "command" || what === "fork") && !kafkasim.state().playing) kafkasim.play();
    });
  },

  // start runs once the engine is ready: a ?lesson= link wins, then the
  // lesson the learner was in.
  async start() {
    const q = new URLSearchParams(location.search);
    if (q.get("lang") && LessonText[q.get("lang")]) { this.lang = q.get("lang"); this.save({ lang: this.lang }); }
    this.updateButton();
    const want = q.get("lesson");
    if (want) {
      if (/^https?:\/\/|^\.?\//.test(want) || want.endsWith(".md")) await this.openURL(want, 0);
      else await this.openBundled(want, Number(q.get("step") || 0));
      return;
    }
    const cur = this.store().current;
    if (cur && cur.source && this.store().resume !== false) {
      if (cur.source.kind === "bundled") await this.openBundled(cur.source.id, cur.step || 0, true);
      else if (cur.source.kind === "url") await this.openURL(cur.source.url, cur.step || 0, true);
      else if (cur.source.kind === "file") await this.openText(cur.source.text, cur.source, cur.step || 0, true);
    }
  },

  updateButton() {
    const b = document.getElementById("lesson-btn");
    if (b) b.textContent = this.t("lessons") + " ▾";
  },

  // --- opening -----------------------------------------------------------
  async openBundled(id, step = 0, quiet) {
    let l;
    try { l = await kafkasim.lessons.get(this.lang, id); } catch (e) { if (!quiet) UI.toast(e.message); return false; }
    this.begin(l, { kind: "bundled", id }, step);
    return true;
  },
  async openURL(url, step = 0, quiet) {
    let text;
    try {
      const r = await fetch(url);
      if (!r.ok) throw new Error(`${r.status} ${r.statusText}`);
      text = await r.text();
    } catch (e) { if (!quiet) UI.toast(`${url}: ${e.message}`); return; }
    await this.openText(text, { kind: "url", url }, step);
  },
  openFile(ev) {
    const f = ev.target.files && ev.target.files[0];
    if (!f) return;
    f.text().then((text) => this.openText(text, { kind: "file", text, name: f.name }, 0));
    ev.target.value = "";
  },
  async openText(text, source, step = 0) {
    let l;
    try { l = await kafkasim.lessons.parse(text, this.guessLang(text)); } catch (e) {
      this.showError(`${this.t("parseError")}${e.line ? " (line " + e.line + ")" : ""}: ${e.message}`);
      return;
    }
    this.begin(l, source, step);
  },
  guessLang(text) { return /[\u4e00-\u9fff]/.test(text.slice(0, 4000)) ? "zh" : "en"; },

  begin(l, source, step) {
    if (UI.locked()) return; // a lesson loads its own cluster: not while watching a room
    this.lesson = l; this.source = source; this.view = "lesson";
    document.getElementById("panel").classList.add("lesson-on");
    this.save({ resume: true });
    this.goTo(Math.max(0, Math.min(step, l.steps.length - 1)));
  },
  close() {
    this.stopTimers();
    this.lesson = null;
    this.setHighlights([]);
    document.getElementById("panel").classList.remove("lesson-on");
    this.save({ current: null, resume: false });
    this.el.replaceChildren();
  },

  // switchLang shows the same lesson and step in the other language; the
  // cluster is untouched (both have the same steps, by test).
  async switchLang(lang) {
    if (lang === this.lang) return;
    this.lang = lang;
    this.updateButton();
    this.save({ lang });
    if (this.lesson && this.source && this.source.kind === "bundled") {
      try { this.lesson = await kafkasim.lessons.get(lang, this.source.id); App.setName(this.lesson.title); } catch (e) { UI.toast(e.message); }
    }
    if (this.view === "index") this.showIndex(); else this.render();
    this.markProgress();
  },

  // --- moving between steps ------------------------------------------------
  // goTo shows step i, not yet run, with the cluster exactly as it is
  // before it: rebuilt by replaying the lesson's commands of the steps
  // before i (act steps by their show-me), so Back is a rewind.
  goTo(i) {
    this.stopTimers();
    const l = this.lesson;
    this.i = i; this.phase = "ready"; this.pick = -1; this.judgement = null; this.lastErr = ""; this.warnings = [];
    const script = kafkasim.lessons.replay(l, i);
    if (typeof Panels !== "undefined") Panels.story = null; // a story from later steps would not exist yet
    if (script) {
      kafkasim.pause();
      kafkasim.load(script);
      this.playScript(script);
      App.setName(l.title);
    }
    this.enterStep();
  },
  // playScript runs a just-loaded replay to its end without animation:
  // first the sum of its waits (exact), then small steps while a settle,
  // poll or commit is still going.
  playScript(script) {
    let total = 0;
    for (const line of script.split("\n")) { const d = waitMs(line); if (d > 0) total += d; }
    if (total > 0) kafkasim.advance(total);
    for (let n = 0; kafkasim.state().scriptEnd < 0 && n < 100000; n++) kafkasim.advance(10);
  },
  enterStep() {
    const st = this.step();
    this.render();
    this.lightUp(st.highlight);
    if (st.kind === "act") this.startAct();
    this.markProgress();
  },
  step() { return this.lesson.steps[this.i]; },
  next() {
    const l = this.lesson;
    if (this.phase === "ready" && this.step().kind !== "act") { this.runStep(); return; }
    if (this.phase === "running") return;
    if (this.i + 1 < l.steps.length) { this.stopTimers(); this.i++; this.phase = "ready"; this.pick = -1; this.judgement = null; this.lastErr = ""; this.warnings = []; this.enterStep(); }
    else { this.stopTimers(); this.phase = "outro"; this.setHighlights([]); this.render(); this.markProgress(); }
  },
  back() {
    if (this.phase === "running") return;
    if (this.phase === "outro") { this.goTo(this.lesson.steps.length - 1); return; }
    this.goTo(Math.max(0, this.phase === "ready" ? this.i - 1 : this.i));
  },

  // --- running -----------------------------------------------------------
  // runLines plays a step's scenario lines on the live cluster, in order:
  // `cluster` loads a new session, waits animate, settle/poll/commit run
  // until they complete, expect lines are checked (not recorded).
  async runLines(lines) {
    kafkasim.pause();
    this.lastErr = "";
    for (const c of lines) {
      const text = c.text;
      if (text.startsWith("cluster")) { kafkasim.load(text); App.setName(this.lesson.title); UI.echo("> " + text, "cmd"); continue; }
      const d = waitMs(text);
      if (d >= 0) { UI.echo("> " + text, "cmd"); await this.animate(d); continue; }
      if (text.startsWith("expect ")) {
        const r = kafkasim.lessons.check([c], this.lastErr);
        if (!r.ok) this.warnings.push(`${this.t("assertion")} \`${text}\` ${this.t("got")} ${r.got[0]}`);
        continue;
      }
      this.lastErr = "";
      const res = UI.run(text);
      if (!res || res.error) this.lastErr = res && res.error ? res.error.msg : "error";
      while (kafkasim.busy()) await this.animate(100);
    }
    App.persist();
  },
  // animate moves virtual time by ms, spread over frames: a wait is seen,
  // not jumped (short waits slowed down, long ones sped up, 0.6 to 4 s of
  // wall time); Skip finishes it at once. It lands exactly on the target.
  animate(ms) {
    const target = kafkasim.now() + ms;
    const wall = Math.min(4000, Math.max(600, ms));
    const rate = ms / wall;
    return new Promise((resolve) => {
      let last = performance.now();
      const frame = (ts) => {
        // The lesson owns the clock while a step runs: a press of Play
        // would carry time past the step's own waits.
        if (kafkasim.state().playing) kafkasim.pause();
        const left = target - kafkasim.now();
        if (left <= 0) { resolve(); return; }
        const dt = this.skipping ? Infinity : Math.min(100, Math.max(0, ts - last));
        last = ts;
        const step = Math.min(left, Math.max(1, Math.round(dt * rate)));
        try { kafkasim.advance(step); } catch (e) { UI.toast(e.message); resolve(); return; }
        this.renderClock();
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
  },
  async runStep() {
    const st = this.step();
    if (st.kind === "predict" && this.pick < 0) { UI.toast(this.t("pick")); return; }
    this.phase = "running"; this.skipping = false;
    this.render();
    await this.runLines(st.commands);
    this.skipping = false;
    if (st.kind === "predict") {
      this.judgement = kafkasim.lessons.judge(st, this.lastErr);
      if (!this.judgement.agrees) this.warnings.push(st.choices.map((c, k) => `${c.correct ? "*" : ""}${k + 1}: ${this.judgement.holds[k] ? "holds" : "does not hold"}`).join("; "));
      this.phase = "judged";
      this.lightUp(st.point && st.point.length ? st.point : st.highlight);
    } else {
      this.phase = "done";
      this.lightUp(st.highlight);
    }
    this.openPanel(st.panel);
    this.render();
    this.markProgress();
  },

  // --- act steps -----------------------------------------------------------
  startAct() {
    const st = this.step();
    this.phase = "acting";
    this.openPanel(st.panel);
    this.hintShown = false;
    this.hintTimer = setTimeout(() => { this.hintShown = true; this.render(); }, 20000);
    this.actTimer = setInterval(() => this.pollAct(), 300);
    this.render();
  },
  pollAct() {
    if (this.phase !== "acting" || !this.lesson) return;
    let r;
    try { r = kafkasim.lessons.check(this.step().checks, ""); } catch (e) { return; }
    if (r.ok) this.actDone();
  },
  actDone() {
    this.stopTimers();
    kafkasim.pause();
    this.phase = "done";
    this.lightUp(this.step().highlight);
    this.render();
    this.markProgress();
  },
  // showMe rewinds to the step's start (the learner may have done part of
  // it) and performs it.
  async showMe() {
    const st = this.step();
    this.stopTimers();
    this.goToQuiet(this.i);
    this.phase = "running"; this.render();
    await this.runLines(st.commands);
    const r = kafkasim.lessons.check(st.checks, "");
    if (!r.ok) this.warnings.push(`${this.t("assertion")} ${st.checks.map((c) => "`" + c.text + "`").join(", ")} ${this.t("got")} ${r.got.join(", ")}`);
    this.actDone();
  },
  goToQuiet(i) {
    const script = kafkasim.lessons.replay(this.lesson, i);
    if (script) { kafkasim.pause(); kafkasim.load(script); this.playScript(script); }
  },
  stopTimers() {
    clearTimeout(this.hintTimer); clearInterval(this.actTimer);
    this.hintTimer = this.actTimer = null;
  },

  // --- canvas and panels -----------------------------------------------------
  lightUp(targets) {
    let refs = [];
    try { refs = kafkasim.lessons.refs(targets || []); } catch (e) { console.warn(e); }
    this.setHighlights(refs);
  },
  setHighlights(refs) { UI.highlights = refs; App.sceneDirty = true; },
  openPanel(p) {
    if (!p) return;
    try {
      if (p.kind === "story") UI.openStory(p.arg);
      else if (p.kind === "segments") { const [part, b] = p.arg.split("@"); Panels.files.partition = part; Panels.files.broker = Number(b) || 0; UI.tab("files"); }
      else if (p.kind === "znodes") UI.tab("meta");
    } catch (e) { console.warn("lesson panel:", e); }
  },

  // --- rendering -----------------------------------------------------------
  html(s) { const d = h("div", { class: "md" }); d.innerHTML = s || ""; return d; }, // goldmark output, raw HTML omitted
  inline(s) { const d = h("span", { class: "md" }); d.innerHTML = s || ""; return d; },
  showError(msg) {
    document.getElementById("panel").classList.add("lesson-on");
    this.el.replaceChildren(this.head(), h("div", { class: "ls-body" }, h("div", { class: "ls-warn" }, msg)));
  },
  langSwitch() {
    const fileOnly = this.lesson && this.source && this.source.kind !== "bundled" && this.view === "lesson";
    return h("span", { class: "ls-lang seg", role: "group", "aria-label": "language" },
      ...["en", "zh"].map((lg) => h("button", { class: lg === this.lang ? "on" : "", disabled: fileOnly && lg !== this.lang ? true : undefined,
        title: fileOnly ? this.t("fileOnly") : "", onclick: () => this.switchLang(lg) }, lg === "en" ? "EN" : "中文")));
  },
  head() {
    return h("header", { class: "ls-head" },
      h("button", { class: "ls-indexbtn", title: this.t("index"), onclick: () => this.showIndex() }, "☰"),
      h("span", { class: "ls-title" }, this.view === "lesson" && this.lesson ? this.lesson.title : this.t("lessons")),
      this.langSwitch(),
      h("button", { class: "ls-close", title: this.t("close"), onclick: () => this.close() }, "×"));
  },
  async showIndex() {
    this.view = "index";
    document.getElementById("panel").classList.add("lesson-on");
    let ix = [];
    try { ix = await kafkasim.lessons.index(this.lang); } catch (e) { UI.toast(e.message); }
    if (this.view !== "index") return; // the learner moved on while it loaded
    const prog = this.progress();
    const list = h("ol", { class: "ls-index" }, ...ix.map((s) => {
      const p = prog[s.id];
      const mark = p && p.done ? h("span", { class: "ls-done", title: this.t("doneMark") }, "✓") :
        p ? h("span", { class: "ls-partial" }, this.t("progress", Math.min(p.step + 1, s.steps), s.steps)) : null;
      return h("li", { class: p && p.done ? "done" : "" },
        h("button", { class: "ls-entry", dataset: { id: s.id }, onclick: () => this.openBundled(s.id, p && !p.done ? p.step : 0) },
          h("span", { class: "ls-etitle" }, s.title), mark, h("span", { class: "ls-esum" }, s.summary)));
    }));
    const open = h("div", { class: "ls-open" },
      h("button", { onclick: () => this.fileInput.click() }, this.t("open")),
      h("button", { onclick: () => { const u = prompt(this.t("urlPrompt")); if (u) this.openURL(u, 0); } }, this.t("openURL")));
    const back = this.lesson ? h("button", { class: "ls-resume", onclick: () => { this.view = "lesson"; this.render(); } }, "← " + this.lesson.title) : null;
    this.el.replaceChildren(this.head(), h("div", { class: "ls-body" }, back, list, open));
  },
  render() {
    if (!this.lesson) return;
    if (this.view === "index") return;
    const l = this.lesson, st = this.step(), n = l.steps.length;
    const body = h("div", { class: "ls-body" });
    if (this.phase === "outro") {
      body.append(this.html(l.outro),
        h("h3", {}, this.t("whatYouSaw")),
        h("ul", { class: "ls-sources" }, ...l.sources.map((s) => h("li", {}, s.url ? h("a", { href: s.url, target: "_blank", rel: "noopener" }, s.text) : s.text))));
    } else {
      body.append(h("div", { class: "ls-count" }, this.t("step", this.i + 1, n)), this.html(st.narration), this.stepBox(st));
    }
    if (this.warnings.length) body.append(h("div", { class: "ls-warn" }, this.t("disagree"), h("ul", {}, ...this.warnings.map((w) => h("li", {}, w)))));
    const last = this.i + 1 >= n;
    let label = this.t("next");
    if (this.phase === "ready" && st.kind !== "act") label = this.t("run");
    else if (this.phase !== "outro" && last && this.phase !== "ready") label = this.t("finish");
    const canNext = this.phase !== "running" && this.phase !== "outro" && !(st.kind === "predict" && this.phase === "ready" && this.pick < 0) && this.phase !== "acting";
    const nav = h("footer", { class: "ls-nav" },
      h("button", { class: "ls-back", disabled: this.phase === "running" || (this.i === 0 && this.phase === "ready") ? true : undefined, onclick: () => this.back() }, this.t("back")),
      this.phase === "running" ? h("button", { class: "ls-skip", onclick: () => { this.skipping = true; } }, this.t("skip")) : null,
      this.phase === "outro" ? h("button", { class: "ls-again", onclick: () => this.goTo(0) }, this.t("again")) :
        h("button", { class: "ls-next primary", disabled: canNext ? undefined : true, onclick: () => this.next() }, label));
    this.el.replaceChildren(this.head(), body, nav);
    // Keep the step in view: after a run, its box from the top (the
    // question, the answers, the verdict), not the narration above it.
    const box = this.el.querySelector(".ls-step");
    if (box && this.phase !== "ready") box.scrollIntoView({ block: "start" });
  },
  renderClock() { /* the top bar clock follows kafkasim.now via App's frame loop */ },
  stepBox(st) {
    const box = h("div", { class: "ls-step ls-" + st.kind });
    if (st.kind === "predict") {
      box.append(h("div", { class: "ls-ask" }, this.inline(st.ask)));
      const judged = this.phase === "judged" && this.judgement;
      st.choices.forEach((c, k) => {
        let cls = "ls-choice";
        if (k === this.pick) cls += " picked";
        if (judged && c.correct) cls += " right";
        if (judged && k === this.pick && !c.correct) cls += " wrong";
        box.append(h("label", { class: cls, dataset: { k: String(k) } },
          h("input", { type: "radio", name: "ls-choice", checked: k === this.pick ? true : undefined, disabled: this.phase !== "ready" ? true : undefined,
            onchange: () => { this.pick = k; this.render(); } }),
          this.inline(c.label)));
      });
      if (judged) {
        const ok = st.choices[this.pick] && st.choices[this.pick].correct;
        const right = st.choices.find((c) => c.correct);
        box.append(h("div", { class: "ls-verdict " + (ok ? "ok" : "no") },
          h("strong", {}, ok ? this.t("right") : this.t("wrong")), " ",
          ok ? null : [this.t("happened"), " ", this.inline(right.label)]));
        box.append(h("div", { class: "ls-why" }, this.inline(st.why)));
        if (st.point && st.point.length) box.append(h("div", { class: "ls-point" }, this.t("lookAt"), " ", st.point.map(targetText).join(", ")));
      } else if (this.phase === "ready") box.append(h("div", { class: "ls-muted" }, this.t("pick")));
    } else if (st.kind === "act") {
      box.append(h("div", { class: "ls-task" }, h("strong", {}, this.t("task"), ": "), this.inline(st.task)));
      if (this.phase === "acting") {
        box.append(h("div", { class: "ls-muted" }, this.t("waiting")));
        box.append(h("div", { class: "ls-actbtns" },
          this.hintShown ? null : h("button", { onclick: () => { this.hintShown = true; this.render(); } }, this.t("hint")),
          h("button", { class: "ls-showme", onclick: () => this.showMe() }, this.t("showMe"))));
      }
      if (this.hintShown || this.phase === "done") box.append(h("div", { class: "ls-hint" }, h("strong", {}, this.t("hint"), ": "), this.inline(st.hint)));
      if (this.phase === "done") box.append(h("div", { class: "ls-verdict ok" }, this.t("done")));
    } else {
      if (this.phase === "running") box.append(h("div", { class: "ls-muted" }, this.t("running")));
    }
    if (st.kind !== "act" || this.phase !== "acting") {
      const cmds = st.commands.filter((c) => !c.text.startsWith("expect "));
      if (cmds.length) box.append(h("details", { class: "ls-cmds", open: this.phase === "ready" && st.kind === "run" ? true : undefined },
        h("summary", {}, this.t("ranCmds")), h("pre", { class: "mono" }, cmds.map((c) => c.text).join("\n"))));
    }
    return box;
  },
};

// waitMs is the duration of a `wait D` line in ms, or -1.
function waitMs(line) {
  const m = /^wait\s+(\d+)(ms|s|m)\s*(#.*)?$/.exec(line.trim());
  if (!m) return -1;
  return Number(m[1]) * { ms: 1, s: 1000, m: 60000 }[m[2]];
}

// targetText names a highlighted element in the pane's language.
function targetText(t) {
  const zh = Lessons.lang === "zh";
  const names = zh ?
    { broker: "broker ", partition: "分区 ", replica: "副本 ", hw: "高水位 ", leo: "LEO ", record: "消息 ", producer: "生产者 ", consumer: "消费者 ", group: "消费组 ", zk: "ZooKeeper", controller: "controller" } :
    { broker: "broker ", partition: "partition ", replica: "replica ", hw: "HW ", leo: "LEO ", record: "record ", producer: "producer ", consumer: "consumer ", group: "group ", zk: "ZooKeeper", controller: "controller" };
  return (names[t.kind] || t.kind + " ") + (t.name || "");
}

window.Lessons = Lessons;
