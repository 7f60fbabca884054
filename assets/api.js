// api.js: starts the engine and defines window.kafkasim, the page API
// (docs/page-api.md). The engine runs in the canvas iframe (canvas.html
// loads wasm/kafkasim.wasm: engine and canvas in one binary); this page
// calls it synchronously through the same-origin iframe.contentWindow.
// Every function is synchronous once `ready` resolved (the lessons' index,
// get and parse return promises: they fetch); errors throw a
// KafkasimError with .line and .col when they point into a script or
// command. When the iframe reloads (Ebiten does on a lost WebGL context)
// the engine restarts empty: onRestart's callbacks restore the session.
"use strict";

class KafkasimError extends Error {
  constructor(info) {
    super(info && info.msg ? info.msg : String(info));
    this.name = "KafkasimError";
    if (info && info.line) this.line = info.line;
    if (info && info.col) this.col = info.col;
  }
}

(() => {
  let engine = null;
  const listeners = new Set();
  const restarts = new Set();
  let lessonParser = null; // a promise of __kafkasimLessonParse (wasm/lessonparse.wasm)
  const lessonCache = new Map();
  const inflight = new Set(); // lesson fetches and parses under way
  let resolveReady, rejectReady;
  const ready = new Promise((res, rej) => { resolveReady = res; rejectReady = rej; });

  // call invokes an engine function and unwraps its JSON answer.
  function call(name, ...args) {
    if (!engine) throw new KafkasimError({ msg: "the engine is not ready yet (await kafkasim.ready)" });
    const text = engine[name](...args);
    const r = JSON.parse(text);
    if (r.error) throw new KafkasimError(r.error);
    return r.ok;
  }
  // soft is call without throwing: {ok} or {error}.
  function soft(name, ...args) {
    if (!engine) return { error: { msg: "the engine is not ready yet" } };
    return JSON.parse(engine[name](...args));
  }
  function firstComment(text) {
    for (const l of text.split("\n")) {
      const t = l.trim();
      if (t.startsWith("#")) return t.replace(/^#+\s*/, "");
      if (t) return "";
    }
    return "";
  }
  function changed(what) {
    for (const fn of listeners) {
      try { fn(what); } catch (e) { console.error("kafkasim listener:", e); }
    }
  }

  const api = {
    ready,
    KafkasimError,
    name: "", // what the session is called (the script's first comment, or the example's name)
    // load replaces the session with a scenario script (text of a .ksim).
    load(text, name) {
      call("load", String(text));
      api.name = name || firstComment(String(text)) || "scenario";
      changed("load");
      return api.state();
    },
    // command runs one scenario-language line now; in the past it forks.
    command(line) {
      const r = soft("command", String(line));
      if (r.error) throw new KafkasimError(r.error);
      changed(r.ok.forked ? "fork" : "command");
      if (r.ok.error) throw Object.assign(new KafkasimError(r.ok.error), { result: r.ok });
      return r.ok;
    },
    play() { const p = call("play"); changed("play"); return p; },
    pause() { call("pause"); changed("pause"); return false; },
    toggle() { return api.state().playing ? api.pause() : api.play(); },
    // step runs to the next event a learner would see; paused afterwards.
    step() { const r = call("step"); changed("step"); return r; },
    // seek moves to virtual time ms (backwards: replay from the seed).
    seek(ms) { const r = call("seek", Number(ms)); changed("seek"); return r; },
    // advance runs ms of virtual time now, playing or not (tests, lessons).
    advance(ms) { const r = call("advance", Number(ms)); changed("advance"); return r; },
    // runUntilDone plays the loaded script to its last step (bounded).
    runUntilDone(limitMs = 3600e3) {
      const start = api.now();
      while (api.state().scriptEnd < 0) {
        if (api.now() - start > limitMs) throw new KafkasimError({ msg: `the script did not finish within ${limitMs} ms` });
        api.advance(1000);
      }
      return api.now();
    },
    // speed sets virtual ms per wall ms (0.01 .. 100); returns it.
    speed(x) { const s = call("speed", Number(x)); changed("speed"); return s; },
    now() { return call("now"); },
    state(withSteps = false) { return call("state", withSteps ? 1 : 0); },
    snapshot() { return call("snapshot"); },
    // events returns the event log: {text, since, limit, wire} filter.
    events(query = {}) { return call("events", JSON.stringify(query)); },
    story(value) { return call("story", String(value)); },
    findings() { return call("findings"); },
    script() { return call("script"); },
    // share returns a link that opens this session at this moment, or
    // null when it is too long for a link (export a .ksim instead).
    share() {
      const s = call("share");
      if (s.tooLong) return null;
      return location.origin + location.pathname + "#" + s.fragment;
    },
    openShare(urlOrFragment) {
      const f = String(urlOrFragment).replace(/^[^#]*#/, "");
      call("openShare", f);
      api.name = "shared session: " + (firstComment(api.script()) || "scenario");
      changed("load");
      return api.state();
    },
    branches() { return api.state().branches; },
    switchBranch(id) { const r = call("switch", Number(id)); changed("switch"); return r; },
    compare(a, b, at = -1) { return call("compare", Number(a), Number(b), Number(at)); },
    segments(partition, broker = 0, offset = -1) { return call("segments", String(partition), Number(broker), Number(offset)); },
    metadata() { return call("metadata"); },
    offsets() { return call("offsets"); },
    metrics() { return call("metrics"); },
    overview() { return call("overview"); },
    describe(target) { return call("describe", String(target)); },
    traceHash() { return api.state().hash; },
    // scene returns the scene the canvas would get (see wasm/scene).
    scene(options = {}) { return call("scene", JSON.stringify(options)).scene; },
    // lessons: the lesson pane's calls (wasm/app/lessons.go, docs/lessons.md):
    // bundled lessons and a teacher's file parsed and rendered in the wasm,
    // a step's checks and a prediction's choices judged on the live cluster,
    // highlight targets resolved to canvas refs, the replay script for Back.
    // index, get and parse return promises: bundled lessons are JSON
    // rendered when the app was built (lessons/LANG/index.json, ID.json),
    // a teacher's file is parsed by wasm/lessonparse.wasm, loaded once on
    // first use.
    lessons: {
      index(lang) { return fetchLesson(`lessons/${encodeURIComponent(lang)}/index.json`, `no bundled lessons in language "${lang}"`); },
      get(lang, id) { return fetchLesson(`lessons/${encodeURIComponent(lang)}/${encodeURIComponent(id)}.json`, `no lesson "${id}" in ${lang}`); },
      parse(text, lang = "en") {
        return track(loadLessonParser().then((parse) => {
          const r = JSON.parse(parse(String(text), String(lang)));
          if (r.error) throw new KafkasimError(r.error);
          return r.ok;
        }));
      },
      // idle resolves once no lesson fetch or parse is under way and what
      // waited for them has run (tests click, then await it).
      idle() {
        return Promise.allSettled([...inflight]).then(() => new Promise((r) => setTimeout(r, 0)))
          .then(() => (inflight.size ? api.lessons.idle() : true));
      },
      check(checks, lastErr = "") { return call("lessonCheck", JSON.stringify(checks || []), String(lastErr || "")); },
      judge(step, lastErr = "") { return call("lessonJudge", JSON.stringify(step), String(lastErr || "")); },
      refs(targets) { return call("lessonRefs", JSON.stringify(targets || [])); },
      replay(lesson, at) { return call("lessonReplay", JSON.stringify(lesson), Number(at)); },
    },
    // busy: a settle, poll or commit is in progress (commands queue behind it).
    busy() { return call("busy"); },
    // onChange(fn) calls fn(what) after every change made through the API
    // or the UI; returns an unsubscribe function.
    onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    // onRestart(fn) calls fn() when the engine started again empty (the
    // canvas iframe reloaded): fn restores the session.
    onRestart(fn) { restarts.add(fn); return () => restarts.delete(fn); },
    _call: call,
    _soft: soft,
    _changed: changed,
    _engine: () => engine,
  };
  window.kafkasim = api;

  function track(p) {
    inflight.add(p);
    const done = () => inflight.delete(p);
    p.then(done, done);
    return p;
  }
  function fetchLesson(url, missing) {
    if (lessonCache.has(url)) return Promise.resolve(lessonCache.get(url));
    return track((async () => {
      const r = await fetch(url);
      if (!r.ok) throw new KafkasimError({ msg: r.status === 404 ? missing : `${url}: ${r.status} ${r.statusText}` });
      const v = await r.json();
      lessonCache.set(url, v);
      return v;
    })());
  }
  function loadLessonParser() {
    if (!lessonParser) {
      lessonParser = new Promise((res, rej) => {
        window.__kafkasimLessonParseReady = () => res(window.__kafkasimLessonParse);
        const go = new Go();
        WebAssembly.instantiateStreaming(fetch("wasm/lessonparse.wasm"), go.importObject)
          .catch(() => fetch("wasm/lessonparse.wasm").then((r) => r.arrayBuffer()).then((b) => WebAssembly.instantiate(b, go.importObject)))
          .then((r) => { go.run(r.instance); })
          .catch((e) => { lessonParser = null; rej(new KafkasimError({ msg: "the lesson parser did not load: " + e })); });
      });
    }
    return lessonParser;
  }

  // start points the canvas iframe at canvas.html (?draw=0 with the
  // page's ?canvas=0: the engine without WebGL) unless index.html already
  // did, and waits for its engine.
  async function start() {
    const frame = document.getElementById("canvas");
    if (!frame) throw new KafkasimError({ msg: "no canvas iframe (#canvas): the engine runs in it" });
    const draw = new URLSearchParams(location.search).get("canvas") !== "0";
    let first, started = false;
    const up = new Promise((res) => { first = res; });
    window.__kafkasimFrameEngine = (win) => {
      if (win !== frame.contentWindow) return;
      const again = engine !== null || started;
      engine = win.__kafkasimEngine;
      started = true;
      if (!again) {
        api.engineMs = performance.now();
        // _onEngine (app.js) runs now, synchronously, while the engine is
        // starting: what it loads is in Ebiten's first frame.
        if (api._onEngine) { try { api._onEngine(); } catch (e) { console.warn("kafkasim:", e); } }
        first();
        return;
      }
      // The iframe reloaded: a fresh engine. Restore after this call
      // returns (the engine is still starting when it tells us).
      Promise.resolve().then(() => {
        for (const fn of restarts) {
          try { fn(); } catch (e) { console.error("kafkasim restart:", e); }
        }
        changed("load");
      });
    };
    window.__kafkasimFrameGone = (win) => { if (win === frame.contentWindow) engine = null; };
    // index.html starts the iframe before this script runs (so the wasm
    // loads alongside the shell's scripts); an engine that came up before
    // now told its stub, and is taken up here.
    const early = window.__kafkasimEarlyEngines;
    if (frame.getAttribute("src") === null) frame.src = "canvas.html" + (draw ? "" : "?draw=0");
    else if (early) for (const win of early.splice(0)) window.__kafkasimFrameEngine(win);
    await up;
  }
  api._start = () => start().then(() => api, (e) => { rejectReady(e); throw e; });
  api._resolveReady = () => resolveReady(api);
})();
