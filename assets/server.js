// server.js: what the page does when kafkasim serve serves it (and
// nothing when it is a static site). Kept apart from app.js: the server's
// API is docs/protocol.md.
//   /?fork=CODE   load a classroom room's history (its .ksim with times)
//                 and replay it here to the room's moment: the student's
//                 own copy; what they do stays in this page. A banner
//                 leads back to the live room.
//   /?room=CODE   joins that classroom room in live mode (live.js);
//                 #token=T makes this tab its teacher.
//   /?share=ID    load a scenario stored on the server (a share link too
//                 long for the URL fragment) and play it to its end.
//   share()       for a session too long for a link, store it on the
//                 server and give its short /?share=ID link instead.
"use strict";
const ServerLink = {
  // restore opens a fork or a stored share; true when it did.
  async restore(app) {
    const q = new URLSearchParams(location.search);
    await Live.init(); // the classroom (live.js), when a server serves the page
    if (q.get("room")) {
      if (Live.available) return Live.restore();
      location.replace("classroom?room=" + encodeURIComponent(q.get("room")) + location.hash);
      return true;
    }
    const fork = q.get("fork"), share = q.get("share");
    if (!fork && !share) return false;
    const url = fork ? "api/rooms/" + encodeURIComponent(fork) + "/history.ksim" : "api/share/" + encodeURIComponent(share);
    try {
      const resp = await fetch(url);
      if (!resp.ok) throw new Error((await resp.json().catch(() => ({}))).message || resp.statusText);
      const text = await resp.text();
      kafkasim.load(text, fork ? "fork of room " + fork : "shared " + share);
      // To the script's end exactly: its last wait is the moment it was
      // shared or forked at (runUntilDone advances in whole seconds).
      const at = Number(q.get("t"));
      if (share && Number.isFinite(at) && at >= 0 && q.get("t") !== null) kafkasim.seek(at);
      else {
        kafkasim.runUntilDone();
        const end = kafkasim.state().scriptEnd;
        if (end >= 0 && end < kafkasim.now()) kafkasim.seek(end);
      }
      app.setName(fork ? "your fork of room " + fork : "shared scenario " + share);
      if (fork) this.banner(fork);
      return true;
    } catch (e) {
      UI.toast((fork ? "The room's history does not open: " : "The shared scenario does not open: ") + e.message);
      return false;
    }
  },
  banner(code) {
    const b = document.createElement("div");
    b.id = "fork-banner";
    b.style.cssText = "position:fixed;bottom:8px;left:50%;transform:translateX(-50%);background:#223;color:#fff;padding:6px 12px;border-radius:6px;z-index:50";
    const a = document.createElement("a");
    a.href = "classroom?room=" + encodeURIComponent(code);
    a.textContent = "back to the live room " + code;
    a.style.color = "#9cf";
    b.append("This is your own copy of the room: nothing you do here reaches it. ", a);
    document.body.append(b);
  },
  // share stores text on the server; the short link, or null without one.
  async share(text) {
    try {
      const resp = await fetch("api/share", { method: "POST", headers: { "Content-Type": "text/plain" }, body: text });
      if (!resp.ok) return null;
      return (await resp.json()).app + "&t=" + kafkasim.now(); // the moment, as a fragment link has it
    } catch (e) { return null; }
  },
};
