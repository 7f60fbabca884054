// api.js: loads the engine wasm and defines window.kafkasim, the page API
// (docs/page-api.md). Every function is synchronous once `ready` resolved;
// errors throw a KafkasimError with .line and .col when they point into a
// script or command.
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
    lessons: {
      index(lang) { return call("lessonIndex", String(lang)); },
      get(lang, id) { return call("lesson", String(lang), String(id)); },
      parse(text, lang = "en") { return call("lessonParse", String(text), String(lang)); },
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
    // _sceneText is the scene envelope as JSON text, ready to post ("" on error).
    _sceneText(options) { return engine ? engine.sceneText(JSON.stringify(options || {})) : ""; },
    _call: call,
    _soft: soft,
    _changed: changed,
    _engine: () => engine,
  };
  window.kafkasim = api;

  async function start() {
    const go = new Go();
    const engineReady = new Promise((res) => { window.__kafkasimEngineReady = res; });
    const resp = fetch("wasm/engine.wasm");
    let inst;
    try {
      inst = await WebAssembly.instantiateStreaming(resp, go.importObject);
    } catch (e) {
      // a server without application/wasm: fall back to a buffer
      const buf = await (await fetch("wasm/engine.wasm")).arrayBuffer();
      inst = await WebAssembly.instantiate(buf, go.importObject);
    }
    go.run(inst.instance).then(() => rejectReady(new KafkasimError({ msg: "the engine exited" })));
    await engineReady;
    engine = window.__kafkasimEngine;
  }
  api._start = () => start().then(() => api, (e) => { rejectReady(e); throw e; });
  api._resolveReady = () => resolveReady(api);
})();
