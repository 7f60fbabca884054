package browsertest

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
)

// recordLines is how many lines a recorder keeps (the newest).
const recordLines = 60

// recordWidth bounds one line.
const recordWidth = 240

// recorder keeps the newest recordLines lines of what a tab reported,
// each stamped with the time since the tab opened. It is called on
// chromedp's event goroutine and read by the test: guarded by mu.
type recorder struct {
	mu    sync.Mutex
	start time.Time
	lines []string // a ring: next is where the next line goes
	next  int
	full  bool
	reqs  map[network.RequestID]string // same-page requests under way, by id
}

func newRecorder() *recorder {
	return &recorder{start: time.Now(), lines: make([]string, recordLines), reqs: map[network.RequestID]string{}}
}

func (r *recorder) add(format string, args ...any) {
	s := fmt.Sprintf("%7.2fs ", time.Since(r.start).Seconds()) + fmt.Sprintf(format, args...)
	if len(s) > recordWidth {
		s = s[:recordWidth] + "…"
	}
	r.lines[r.next] = s
	r.next = (r.next + 1) % len(r.lines)
	if r.next == 0 {
		r.full = true
	}
}

// note adds a line of the test's own (what it asked the tab to do).
func (r *recorder) note(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.add(format, args...)
}

// String is the record, oldest line first, then the requests still under
// way.
func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sb strings.Builder
	if r.full {
		sb.WriteString("  (older lines dropped)\n")
		for _, l := range r.lines[r.next:] {
			sb.WriteString("  " + l + "\n")
		}
	}
	for _, l := range r.lines[:r.next] {
		sb.WriteString("  " + l + "\n")
	}
	if len(r.reqs) > 0 {
		sb.WriteString("  requests without an answer yet:")
		for _, u := range r.reqs {
			sb.WriteString(" " + u)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// event records one event of the tab (chromedp.Listen's callback: it
// must not block).
func (r *recorder) event(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch e := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		parts := make([]string, 0, len(e.Args))
		for _, a := range e.Args {
			switch {
			case len(a.Value) > 0:
				parts = append(parts, string(a.Value))
			case a.Description != "":
				parts = append(parts, a.Description)
			default:
				parts = append(parts, string(a.Type))
			}
		}
		r.add("console.%s %s", e.Type, strings.Join(parts, " "))
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		r.add("exception %s (%s:%d:%d)", text, d.URL, d.LineNumber+1, d.ColumnNumber+1)
	case *page.EventFrameNavigated:
		if e.Frame != nil {
			r.add("navigated %s %s", frameKind(e.Frame.ParentID != ""), e.Frame.URL)
		}
	case *page.EventNavigatedWithinDocument:
		r.add("address bar %s", e.URL)
	case *page.EventLifecycleEvent:
		switch e.Name {
		case "DOMContentLoaded", "load", "networkIdle":
			r.add("lifecycle %s", e.Name)
		}
	case *page.EventJavascriptDialogOpening:
		r.add("dialog %s %q (the page waits for an answer)", e.Type, e.Message)
	case *inspector.EventTargetCrashed:
		r.add("the tab crashed")
	case *network.EventRequestWillBeSent:
		if e.Request != nil && !strings.HasPrefix(e.Request.URL, "data:") {
			u := shortURL(e.Request.URL)
			r.reqs[e.RequestID] = e.Request.Method + " " + u
		}
	case *network.EventResponseReceived:
		if u, ok := r.reqs[e.RequestID]; ok && e.Response != nil && e.Response.Status >= 400 {
			r.add("%s: %d %s", u, e.Response.Status, e.Response.StatusText)
		}
	case *network.EventLoadingFinished:
		delete(r.reqs, e.RequestID)
	case *network.EventLoadingFailed:
		if u, ok := r.reqs[e.RequestID]; ok {
			r.add("%s failed: %s", u, e.ErrorText)
			delete(r.reqs, e.RequestID)
		}
	}
}

func frameKind(child bool) string {
	if child {
		return "frame"
	}
	return "page"
}

// shortURL is u without its scheme and host, and bounded.
func shortURL(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			u = u[i+3+j:]
		}
	}
	if len(u) > 80 {
		u = u[:80] + "…"
	}
	return u
}
