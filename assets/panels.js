// panels.js: the DOM panels. Each render function reads the page API and
// rebuilds its pane; nothing here changes the simulation except through
// window.kafkasim (seek on a time link, switch on a branch).
"use strict";

// h builds an element: h("div", {class: "x", onclick: f}, "text", child).
function h(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of kids.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function fmtTime(ms) {
  if (ms < 0) return "—";
  return (ms / 1000).toFixed(3) + "s";
}

// timeLink seeks to a moment when clicked.
function timeLink(ms) {
  return h("a", { class: "time", href: "#", title: "go to this moment", onclick: (e) => { e.preventDefault(); UI.seek(ms); } }, fmtTime(ms));
}

// valueChip opens a record's story.
function valueChip(v, cls) {
  return h("a", { class: "chip " + (cls || ""), href: "#", title: "the story of " + v, onclick: (e) => { e.preventDefault(); UI.openStory(v); } }, v);
}

const Panels = {
  story: null, // the value whose story is open
  files: { partition: "", broker: 0, offset: -1 },

  renderStory() {
    const pane = document.getElementById("pane-story");
    if (!this.story) {
      // kept: rebuilt, it repainted 4 times a second and lost what was typed
      if (pane.querySelector("#story-input")) return;
      this._storyKey = null;
      pane.replaceChildren();
      pane.append(h("div", { class: "empty" },
        h("p", {}, "Click a record (a cell in a log, at a consumer, or a value in the event log or findings) to read its life story."),
        h("p", {}, "Or type a value: "),
        h("input", { id: "story-input", placeholder: "record value, e.g. m3", onkeydown: (e) => { if (e.key === "Enter") UI.openStory(e.target.value.trim()); } })));
      return;
    }
    let s;
    try { s = kafkasim.story(this.story); } catch (e) { this._storyKey = null; pane.replaceChildren(h("p", { class: "err" }, e.message)); return; }
    const key = JSON.stringify(s);
    if (this._storyKey === key) return; // the same story: no repaint
    pane.replaceChildren();
    this._storyKey = key;
    const fate = s.fates[0] || "unknown";
    pane.append(h("div", { class: "story-head" },
      h("span", { class: "story-value" }, s.value),
      s.fates.map((f) => h("span", { class: "badge fate-" + f }, f)),
      h("button", { class: "small", title: "close", onclick: () => { this.story = null; this.renderStory(); UI.select(null); } }, "×")));
    pane.append(h("p", { class: "story-summary fate-text-" + fate }, s.summary));
    if (s.forgotten) pane.append(h("p", { class: "note" }, "The oldest events were dropped to bound memory: the beginning of this story may be missing."));
    const list = h("ol", { class: "story" });
    for (const l of s.lines) {
      const li = h("li", { class: "k-" + l.kind + (l.cause ? " cause" : "") },
        timeLink(l.at),
        h("span", { class: "kind" }, l.kind),
        h("span", { class: "text" }, l.text),
        l.cause ? h("span", { class: "cause-tag", title: "this is what decided the record's fate" }, "cause") : null,
        l.seq ? h("a", { class: "seq", href: "#", title: "show in the event log", onclick: (e) => { e.preventDefault(); UI.showEvent(l.seq); } }, "#" + l.seq) : null);
      list.append(li);
    }
    pane.append(list);
  },

  renderFindings() {
    const pane = document.getElementById("pane-findings");
    const fs = kafkasim.findings();
    document.getElementById("findings-count").textContent = fs.length ? String(fs.length) : "";
    pane.replaceChildren(h("p", { class: "note" }, "What the invariant checker finds broken now: lost, duplicated, reordered or redelivered records, diverged replicas, offsets committed backwards. Click a record for its story."));
    if (!fs.length) { pane.append(h("p", { class: "ok" }, "No violations: every acknowledged record is where it should be.")); return; }
    for (const f of fs) {
      pane.append(h("div", { class: "finding k-" + f.kind },
        h("span", { class: "badge fate-" + f.kind }, f.kind),
        f.partition ? h("span", { class: "part" }, f.partition) : null,
        h("span", { class: "vals" }, (f.values || []).slice(0, 40).map((v) => valueChip(v, "fate-" + f.kind))),
        h("div", { class: "detail" }, f.detail || "")));
    }
  },

  renderFiles() {
    const pane = document.getElementById("pane-files");
    pane.replaceChildren();
    const snap = kafkasim.snapshot();
    const parts = [];
    for (const t of snap.topics) for (const p of t.partitions) parts.push({ name: p.name, internal: t.internal, p });
    if (!parts.length) { pane.append(h("p", { class: "empty" }, "No topics yet: create one (topic create orders partitions=1 rf=3).")); return; }
    const f = this.files;
    if (!parts.find((x) => x.name === f.partition)) f.partition = (parts.find((x) => !x.internal) || parts[0]).name;
    const cur = parts.find((x) => x.name === f.partition).p;
    const selP = h("select", { onchange: (e) => { f.partition = e.target.value; f.broker = 0; this.renderFiles(); } },
      parts.filter((x) => !x.internal || x.name === f.partition).map((x) => h("option", { value: x.name, selected: x.name === f.partition }, x.name)));
    const selB = h("select", { onchange: (e) => { f.broker = Number(e.target.value); this.renderFiles(); } },
      h("option", { value: 0, selected: f.broker === 0 }, "leader"),
      cur.replicas.map((r) => h("option", { value: r.broker, selected: r.broker === f.broker }, "broker " + r.broker + " (" + r.role + ")")));
    const off = h("input", { type: "number", min: 0, value: f.offset >= 0 ? f.offset : "", placeholder: "offset N", class: "num",
      onchange: (e) => { f.offset = e.target.value === "" ? -1 : Number(e.target.value); this.renderFiles(); } });
    pane.append(h("div", { class: "filter-row" }, selP, selB, h("label", { "data-explain": "fetchwalk" }, "fetch at ", off)));
    let v;
    try { v = kafkasim.segments(f.partition, f.broker, f.offset); } catch (e) { pane.append(h("p", { class: "err" }, e.message)); return; }
    const L = v.log;
    pane.append(h("p", { class: "facts" },
      h("span", { "data-explain": "replica" }, `${L.partition} on broker ${L.broker}: `),
      h("span", { "data-explain": "leo" }, `LEO ${L.leo}`), ", ",
      h("span", { "data-explain": "hw" }, `HW ${L.hw}`), ", ",
      `log start ${L.logStart}, `,
      h("span", { "data-explain": "record.pagecache" }, `on disk below ${L.flushed}`)));
    if (L.epochs && L.epochs.length) {
      pane.append(h("p", { class: "facts", "data-explain": "epoch" }, "leader-epoch-checkpoint: " + L.epochs.map((e) => `epoch ${e.Epoch} from offset ${e.StartOffset}`).join(" · ")));
    }
    const walk = v.walk || {};
    for (const s of L.segments) {
      const base = s.File.replace(/\.log$/, "");
      const hit = walk.segment === s.File;
      const seg = h("div", { class: "segment" + (hit ? " hit" : ""), "data-explain": "segment" },
        h("div", { class: "file" }, h("b", {}, s.File), `  offsets ${s.BaseOffset}..${s.NextOffset - 1} · ${s.Records} records in ${s.Batches} batches · ${s.SizeBytes} bytes (${s.FlushedBytes} flushed)${s.Active ? " · active" : ""}`),
        h("div", { class: "file" }, h("b", {}, base + ".index"), " ",
          (s.OffsetIndex || []).length ? (s.OffsetIndex || []).slice(0, 40).map((e) =>
            h("span", { class: "ie" + (hit && walk.indexFound && walk.indexOffset === e.Offset ? " used" : "") }, `${e.Offset}→${e.Position}`)) : h("span", { class: "muted" }, "(no entries yet: one per " + L.config.indexIntervalBytes + " bytes)")),
        h("div", { class: "file" }, h("b", {}, base + ".timeindex"), " ",
          (s.TimeIndex || []).length ? (s.TimeIndex || []).slice(0, 20).map((e) => h("span", { class: "ie" }, `${fmtTime(e.Timestamp)}→${e.Offset}`)) : h("span", { class: "muted" }, "(no entries)")));
      pane.append(seg);
    }
    pane.append(h("p", { class: "note" }, `segment.bytes=${L.config.segmentBytes}, index.interval.bytes=${L.config.indexIntervalBytes}, retention.ms=${L.config.retentionMs}, retention.bytes=${L.config.retentionBytes}`));
    const wl = h("ol", { class: "walk", "data-explain": "fetchwalk" });
    if (walk.error) wl.append(h("li", { class: "err" }, `fetch at ${walk.offset}: ${walk.error}`));
    else if (walk.atEnd) wl.append(h("li", {}, `fetch at ${walk.offset}: that is the log end offset; nothing to read until a record arrives (the fetch waits up to fetch.max.wait.ms).`));
    else {
      wl.append(h("li", {}, `segment: ${walk.segment}, the last one whose base offset (${walk.segmentBase}) is ≤ ${walk.offset}`));
      wl.append(h("li", {}, walk.indexFound ? `index: the largest entry ≤ ${walk.offset} is offset ${walk.indexOffset} → position ${walk.indexPosition}` : `index: no entry ≤ ${walk.offset}: scan from position 0`));
      wl.append(h("li", {}, `scan the .log from position ${walk.scanFrom}: ${walk.bytesScanned} bytes stepped over to the batch at position ${walk.position}`));
      wl.append(h("li", {}, `return whole batches: ${walk.batchOffsets.map((b) => b[0] === b[1] ? `${b[0]}` : `${b[0]}..${b[1]}`).join(", ")} (${walk.bytes} bytes; the client drops records below ${walk.offset})`));
    }
    pane.append(h("h4", {}, `How a fetch at offset ${walk.offset} walks the sparse index`), wl);
    const cells = h("div", { class: "cells" });
    for (const r of v.records) {
      const cls = ["cell", r.committed ? "committed" : "uncommitted", r.flushed ? "" : "pagecache", r.offset === walk.offset ? "target" : ""].join(" ");
      // a null value (a tombstone) reads "null", as kafka-console-consumer prints it, in italics: no value "null"
      const val = r.nullValue ? h("i", { title: "a null value: a tombstone" }, "null") : r.value;
      cells.append(h("a", { class: cls, href: "#", "data-explain": r.committed ? "record.committed" : "record.uncommitted", "data-explain-extra": `offset ${r.offset}, epoch ${r.epoch}${r.flushed ? ", on disk" : ", only in the page cache"}${r.key ? ", key " + r.key : ""}${r.nullValue ? ", a null value (tombstone)" : ""}`,
        onclick: (e) => { e.preventDefault(); UI.openStory(r.value); } }, h("small", {}, r.offset), val));
    }
    pane.append(h("h4", {}, "Records around it"), cells);
  },

  renderMeta() {
    const pane = document.getElementById("pane-meta");
    const m = kafkasim.metadata();
    pane.replaceChildren();
    if (m.mode === "zk") {
      pane.append(h("p", { class: "note" }, `ZooKeeper holds the cluster's metadata: brokers register ephemeral znodes, the controller owns /controller, partition state lives under /brokers/topics. ${m.writes} writes so far.`));
      const tree = h("div", { class: "znodes mono" });
      for (const [path, data] of m.znodes || []) {
        const depth = path.split("/").length - 2;
        tree.append(h("div", { class: "zn", style: `padding-left:${depth * 14}px` }, h("span", { class: "zpath" }, path.split("/").pop() || "/"), data ? h("span", { class: "zdata" }, " " + data) : null, h("span", { class: "muted" }, "  " + path)));
      }
      pane.append(tree);
    } else {
      pane.append(h("p", { class: "note" }, "KRaft: the controller quorum keeps the metadata as a log of records (the __cluster_metadata topic); brokers replay it."));
      const log = h("ol", { class: "mono metalog" });
      for (const l of m.log || []) log.append(h("li", {}, l));
      pane.append(log);
    }
  },

  renderOffsets() {
    const pane = document.getElementById("pane-offsets");
    const o = kafkasim.offsets();
    pane.replaceChildren(h("p", { class: "note" }, "Committed offsets: where each group resumes. The coordinator (the leader of the group's __consumer_offsets partition) stores each commit as a record there."));
    if (o.inZk) pane.append(h("p", { class: "note" }, "Kafka 0.8: offsets are kept in ZooKeeper (/consumers/GROUP/offsets); see the Metadata tab."));
    if (!o.groups.length) pane.append(h("p", { class: "empty" }, "No consumer groups yet: add a consumer (a)."));
    for (const g of o.groups) {
      const rows = Object.keys(g.committed).sort().map((p) => h("tr", {}, h("td", {}, p), h("td", {}, g.committed[p])));
      pane.append(h("div", { class: "group", "data-explain": "group" },
        h("b", {}, g.name), ` ${g.state}, generation ${g.generation}, coordinator broker ${g.coordinator}, ${g.protocol || "no protocol yet"}`,
        h("div", {}, "members: " + (g.members.map((m) => `${m.client} → [${m.assignment.join(", ")}]`).join("; ") || "none")),
        h("table", {}, h("tr", {}, h("th", {}, "partition"), h("th", {}, "committed offset")), rows)));
    }
    if (o.records.length) {
      pane.append(h("h4", {}, "__consumer_offsets records (newest last)"));
      const t = h("table", { class: "mono small" }, h("tr", {}, h("th", {}, "partition"), h("th", {}, "offset"), h("th", {}, "key"), h("th", {}, "value")));
      for (const r of o.records.slice(-120)) t.append(h("tr", {}, h("td", {}, r.partition), h("td", {}, r.offset), h("td", {}, r.key), h("td", {}, r.value.length > 80 ? r.value.slice(0, 80) + "…" : r.value)));
      pane.append(t);
    }
  },

  renderMetrics() {
    const pane = document.getElementById("pane-metrics");
    const m = kafkasim.metrics();
    const card = (key, label, n, list) => h("div", { class: "card" + (n ? " warn" : ""), "data-explain": key }, h("div", { class: "n" }, n), h("div", {}, label), list && list.length ? h("div", { class: "muted" }, list.slice(0, 8).join(", ")) : null);
    pane.replaceChildren(
      h("div", { class: "cards" },
        card("urp", "under-replicated partitions", m.underReplicated.length, m.underReplicated),
        card("offline", "offline partitions", m.offline.length, m.offline),
        card("minisr", "under min ISR", m.underMinIsr.length, m.underMinIsr),
        card("isr", "ISR shrinks", m.isrShrinks), card("isr", "ISR expands", m.isrExpands),
        card("leader", "elections", m.elections), card("leader", "unclean elections", m.unclean),
        card("record.lost", "truncations", m.truncations), card("record.lost", "acked records lost", m.lost)),
      h("h4", { "data-explain": "lag" }, "Consumer lag (leader HW − position)"),
      m.lag.length ? h("table", {}, h("tr", {}, h("th", {}, "consumer"), h("th", {}, "partition"), h("th", {}, "position"), h("th", {}, "HW"), h("th", {}, "lag")),
        m.lag.map((l) => h("tr", { class: l.lag ? "warn" : "" }, h("td", {}, l.consumer), h("td", {}, l.partition), h("td", {}, l.position), h("td", {}, l.hw), h("td", {}, l.lag)))) : h("p", { class: "muted" }, "no consumer positions yet"),
      h("h4", { "data-explain": "producer" }, "Producers"),
      m.producers.length ? h("table", {}, h("tr", {}, h("th", {}, "producer"), h("th", {}, "acks"), h("th", {}, "sent"), h("th", {}, "acked"), h("th", {}, "failed"), h("th", {}, "pending")),
        m.producers.map((p) => h("tr", {}, h("td", {}, p.name), h("td", {}, p.acks), h("td", {}, p.sent), h("td", {}, p.acked), h("td", {}, p.failed), h("td", {}, p.pending)))) : h("p", { class: "muted" }, "no producers"));
  },

  eventSeq: 0,
  renderEvents(force) {
    const list = document.getElementById("event-list");
    const text = document.getElementById("event-filter").value.trim();
    const wire = document.getElementById("event-wire").checked;
    const evs = kafkasim.events({ text, wire, limit: 1500 });
    const last = evs.length ? evs[evs.length - 1].seq : 0;
    if (!force && last === this.eventSeq && list.childElementCount) return;
    this.eventSeq = last;
    const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 30;
    list.replaceChildren();
    for (const e of evs) {
      const row = h("div", { class: "ev t-" + e.type.replace(/\./g, "-"), id: "ev-" + e.seq, dataset: { seq: e.seq } }, timeLink(e.at), " ");
      // record values in the line are links to their stories
      let t = e.text;
      const vals = (e.values || []).filter((v) => v && t.includes(v));
      if (vals.length) {
        const re = new RegExp("(" + vals.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|") + ")");
        for (const part of t.split(re)) row.append(vals.includes(part) ? valueChip(part) : part);
      } else row.append(t);
      list.append(row);
    }
    if (!evs.length) list.append(h("div", { class: "muted" }, text ? "no event matches" : "no events yet"));
    if (atBottom || force) list.scrollTop = list.scrollHeight;
  },

  renderBranches() {
    const pane = document.getElementById("pane-branches");
    const st = kafkasim.state();
    document.getElementById("branch-count").textContent = st.branches.length > 1 ? String(st.branches.length) : "";
    pane.replaceChildren(h("p", { class: "note", "data-explain": "fork" }, "Drag the timeline back and act (crash a broker, change a setting): a new branch starts there and the old one is kept. The rest of the script runs in both, so they differ only by what you did."));
    for (const b of st.branches) {
      const cur = b.id === st.branch;
      pane.append(h("div", { class: "branch" + (cur ? " current" : "") },
        h("b", {}, b.name), cur ? h("span", { class: "badge" }, "current") : null,
        b.parent > 0 ? h("span", {}, ` forked from ${b.parent} at `, timeLink(b.forkAt), `: `, h("code", {}, b.change)) : h("span", {}, " the first history"),
        h("span", { class: "muted" }, ` · played to ${fmtTime(b.horizon)}`),
        cur ? null : h("button", { class: "small", onclick: () => UI.switchBranch(b.id) }, "switch to it"),
        cur ? null : h("button", { class: "small", onclick: () => this.renderCompare(st.branch, b.id) }, "compare with current")));
    }
    if (st.branches.length < 2) pane.append(h("p", { class: "muted" }, "Only one branch so far."));
    if (this.compareWith) this.renderCompare(this.compareWith[0], this.compareWith[1], true);
  },

  compareWith: null,
  renderCompare(a, b, inPlace) {
    this.compareWith = [a, b];
    const pane = document.getElementById("pane-branches");
    let c;
    try { c = kafkasim.compare(a, b); } catch (e) { pane.append(h("p", { class: "err" }, e.message)); return; }
    UI.markDivergence(c.divergeAt);
    const side = (s) => h("div", { class: "side" },
      h("h4", {}, s.name, s.change ? h("code", {}, " " + s.change) : null),
      h("div", {}, s.findings.length ? s.findings.map((f) => h("div", { class: "finding" }, h("span", { class: "badge fate-" + f.kind }, f.kind), " ", (f.values || []).slice(0, 10).map((v) => valueChip(v)))) : h("span", { class: "ok" }, "no violations")),
      h("table", { class: "small" }, Object.keys(s.logs).sort().map((p) => h("tr", {}, h("td", {}, p), h("td", {}, s.leaders[p]), h("td", { class: "mono" }, s.logs[p])))),
      h("div", { class: "mono after" }, s.after.slice(0, 60).map((e) => h("div", {}, fmtTime(e.at) + " " + e.text))));
    const box = h("div", { class: "compare" },
      h("p", { class: "diverge" }, c.divergeAt < 0 ? `Identical up to ${fmtTime(c.at)}.` : h("span", {}, "The branches diverge at ", timeLink(c.divergeAt), ` (compared at ${fmtTime(c.at)}). Committed logs, findings and the events from there on:`)),
      h("div", { class: "sides" }, side(c.a), side(c.b)));
    const old = pane.querySelector(".compare");
    if (old) old.replaceWith(box); else pane.append(box);
    if (!inPlace) UI.tab("branches");
  },

  renderScript() {
    const pane = document.getElementById("pane-script");
    const st = kafkasim.state(true);
    pane.replaceChildren(h("p", { class: "note" }, "The session as a scenario script: what you did is part of it (waits are split around your commands). Export it (Scenario ▾) and run it with kafkasim run."));
    const ol = h("ol", { class: "steps mono" });
    for (const s of st.steps || []) {
      const cls = s.i < st.next - 1 ? "done" : s.i === st.next - 1 ? "now" : "todo";
      ol.append(h("li", { class: cls + (s.error ? " failed" : "") }, s.at >= 0 ? timeLink(s.at) : h("span", { class: "time muted" }, "—"), " ", s.text, s.error ? h("div", { class: "err" }, s.error) : null));
    }
    pane.append(ol);
    const now = ol.querySelector(".now");
    if (now) now.scrollIntoView({ block: "nearest" });
  },
};
window.Panels = Panels;
window.h = h;
window.fmtTime = fmtTime;
