package webapp_test

import (
	"strings"
	"testing"
)

// in is b reporting to t (a subtest).
func (b *browser) in(t *testing.T) *browser {
	nb := *b
	nb.t = t
	return &nb
}

// lockText is what a watcher's disabled controls say (assets/live.js).
const lockText = "The teacher drives this room; Fork to try it yourself."

// controlsJS sorts every control of the page's bars (top bar, timeline,
// stage bar, console, scenario menu, lessons button) into those that
// only change the page's view (viewOnly: they stay on for a watcher) and
// the rest, which would drive the cluster; it reports the driving
// controls that are on, those off without the reason, and view controls
// that are off. A control added to a bar later is a driving one unless
// it is listed here, so a new control left on for a watcher fails the
// test.
const controlsJS = `(() => {
	const viewOnly = ["#scenario-btn", "#btn-help", "[data-view]", "#classes button", "#span",
		'#scenario-dropdown [data-act="export"]', '#scenario-dropdown [data-act="share"]', "#class-menu button", "#class-menu input"];
	const all = document.querySelectorAll("#topbar button, #topbar input, #topbar select, #timeline input, #stage-bar button, #stage-bar input, #stage-bar select, #console input, #scenario-dropdown button, #scenario-dropdown input");
	const name = (el) => el.id ? "#" + el.id : (el.dataset.act ? "[data-act=" + el.dataset.act + "]" : el.tagName.toLowerCase() + "." + el.className + ":" + (el.textContent || "").trim().slice(0, 20));
	const out = {on: [], untold: [], viewOff: [], driving: 0};
	for (const el of all) {
		if (viewOnly.some((s) => el.matches(s))) { if (el.disabled) out.viewOff.push(name(el)); continue; }
		out.driving++;
		if (!el.disabled) out.on.push(name(el));
		else if (el.title !== ` + "`" + lockText + "`" + `) out.untold.push(name(el) + " says " + JSON.stringify(el.title));
	}
	return out;
})()`

type controls struct {
	On      []string `json:"on"`
	Untold  []string `json:"untold"`
	ViewOff []string `json:"viewOff"`
	Driving int      `json:"driving"`
}

// checkLocked fails unless every driving control of b's page is off with
// the reason, keys and the broker menu refuse, and views stay on.
func (b *browser) checkLocked(what string) {
	b.t.Helper()
	var c controls
	b.js(&c, controlsJS)
	if c.Driving < 15 || len(c.On) > 0 || len(c.Untold) > 0 || len(c.ViewOff) > 0 {
		b.t.Fatalf("%s: a watcher's controls: %d driving, on: %v; off without the reason: %v; view controls off: %v", what, c.Driving, c.On, c.Untold, c.ViewOff)
	}
	var bar string
	b.js(&bar, `document.getElementById("live-bar").innerText`)
	if !strings.Contains(bar, "the teacher drives this room") {
		b.t.Fatalf("%s: the bar does not say why the controls are off: %q", what, bar)
	}
	// Keys: each driving shortcut is refused with the reason (and nothing
	// reaches the engine, whose refusal would say something else); the
	// view keys still work.
	for _, k := range []string{" ", "ArrowRight", "ArrowLeft", "Home", "End", "[", "]", "c", "o", "p", "u", "r", "i", "h", "s", "e", "E", "a", "x", "g", ":", "l"} {
		var toast string
		b.js(&toast, `(() => { UI.select({kind: "broker", broker: 1}); document.getElementById("toast").textContent = "";
			document.dispatchEvent(new KeyboardEvent("keydown", {key: `+jsString(k)+`, bubbles: true}));
			UI.closeMenus(); return document.getElementById("toast").textContent; })()`)
		if toast != lockText {
			b.t.Fatalf("%s: key %q on a watcher's page: toast %q, want the reason", what, k, toast)
		}
	}
	var view string
	b.js(&view, `(() => { document.dispatchEvent(new KeyboardEvent("keydown", {key: "v", bubbles: true})); return UI.view; })()`)
	if view != "spacetime" {
		b.t.Fatalf("%s: the view key v on a watcher's page left the view %q", what, view)
	}
	b.js(nil, `App.setView("cluster"), UI.select(null), true`)
	// A click on a broker: its menu shows the reason, each action off
	// with it, the logs still there.
	var menu struct {
		Lock string   `json:"lock"`
		On   []string `json:"on"`
		Off  int      `json:"off"`
	}
	b.js(&menu, `(() => { App.onCanvas({type: "click", kind: "broker", broker: 1, x: 300, y: 200});
		const m = document.getElementById("menu"), r = {lock: (m.querySelector(".menu-lock") || {}).textContent || "", on: [], off: 0};
		for (const x of m.querySelectorAll("button")) { if (x.disabled && x.title === `+jsString(lockText)+`) r.off++; else if (!x.disabled) r.on.push(x.textContent); }
		return r; })()`)
	if menu.Lock != lockText || menu.Off < 5 || len(menu.On) != 1 || !strings.HasPrefix(menu.On[0], "Show its logs") {
		b.t.Fatalf("%s: a watcher's broker menu: %+v", what, menu)
	}
}

// checkFree fails unless every control is on again (a fork, the teacher).
func (b *browser) checkFree(what string) {
	b.t.Helper()
	var c controls
	b.js(&c, controlsJS)
	if c.Driving < 15 || len(c.On) != c.Driving || len(c.ViewOff) > 0 {
		b.t.Fatalf("%s: %d of %d driving controls on (%v); view controls off: %v", what, len(c.On), c.Driving, c.On, c.ViewOff)
	}
	var lock string
	b.js(&lock, `UI.lock`)
	if lock != "" {
		b.t.Fatalf("%s: the page is still locked: %q", what, lock)
	}
}
