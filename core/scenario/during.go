package scenario

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/kafkasim/kafkasim/core"
)

// duringVerb is `during +D COMMAND`: COMMAND is applied D after the
// settle, poll or commit before it started, while that operation is
// still in progress. A script's own lines wait for a blocking operation
// to complete, but a real client does not: kafkasim serve's room writes
// a real client's request that came in the middle of a script's settle
// this way, so a replay (a page following the room, `kafkasim run` of
// its history) applies it at the same instant of the same operation.
// COMMAND may be any command that does not block (an `outside` line, `zk
// delete`, a crash, ...). If the operation has completed by then, the
// replay did not go as the room did: the line fails and its command is
// not applied.
const duringVerb = "during"

func init() { verbs[duringVerb] = parseDuring } // parseDuring parses through verbs

// duringRest returns the command of a `during +D COMMAND` line (comment
// not yet cut), or "" if line is not one.
func duringRest(line string) string {
	rest, ok := strings.CutPrefix(strings.TrimLeftFunc(line, unicode.IsSpace), duringVerb)
	if !ok || rest == "" || !unicode.IsSpace(rune(rest[0])) {
		return ""
	}
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	i := strings.IndexFunc(rest, unicode.IsSpace)
	if i < 0 {
		return ""
	}
	return rest[i:]
}

// parseDuring parses `during +D COMMAND`.
func parseDuring(p *lineParser, st *Step) error {
	u := usage[duringVerb]
	w, err := p.arg(1, "+D (the time since the operation started)", u)
	if err != nil {
		return err
	}
	d, ok := strings.CutPrefix(w.s, "+")
	if !ok {
		return p.errAt(w, "bad offset %q: want +D, the time since the settle, poll or commit in progress started, as in +250ms (usage: %s)", w.s, u)
	}
	ms, err := p.duration(word{s: d, off: w.off + 1}, 0, core.MaxWait)
	if err != nil {
		return err
	}
	if len(p.words) < 3 {
		return p.errEnd("missing the command (usage: %s)", u)
	}
	inner := &lineParser{line: p.line, no: p.no, words: p.words[2:]}
	if inner.words[0].s == duringVerb {
		return inner.errAt(inner.words[0], "during inside during")
	}
	if err := inner.parse(st); err != nil {
		return err
	}
	switch st.Cmd.(type) {
	case nil:
		return p.errAt(p.words[2], "during needs a command, not %s (usage: %s)", p.words[2].s, u)
	case core.Wait, core.Settle, core.Poll, core.Commit:
		return p.errAt(p.words[2], "%s blocks: a command applied during an operation in progress cannot be another one", p.words[2].s)
	}
	st.During = &ms
	return nil
}

// FormatDuring writes line (a command's scenario form) as applied d ms
// after the start of the operation in progress.
func FormatDuring(d int64, line string) (string, error) {
	if d < 0 || d > core.MaxWait {
		return "", fmt.Errorf("format: during +%d ms: want 0 to 24 hours", d)
	}
	return duringVerb + " +" + formatDuration(d) + " " + line, nil
}

// beginDuring runs a `during` step: time runs on to its instant in the
// operation in progress, and its command is applied there.
func (r *Runner) beginDuring(st *Step) {
	r.cmdErr = ""
	r.finishError()
	if r.running == nil {
		r.echo(st)
		r.fail(st.Line, "during: no settle, poll or commit is in progress")
		return
	}
	at := r.started + *st.During
	if at < r.c.Now() {
		r.echo(st)
		r.fail(st.Line, fmt.Sprintf("during +%s: that is %s, before now (%s)", formatDuration(*st.During), core.FormatTime(at), core.FormatTime(r.c.Now())))
		return
	}
	for r.running != nil && r.c.Now() < at {
		if _, err := r.Advance(min(at-r.c.Now(), core.MaxAdvance)); err != nil {
			r.echo(st)
			r.fail(st.Line, err.Error())
			return
		}
	}
	r.echo(st) // at its instant, after what happened before it
	if r.running == nil {
		r.fail(st.Line, fmt.Sprintf("during +%s: the operation completed at %s, before", formatDuration(*st.During), core.FormatTime(r.c.Now())))
		return
	}
	err := r.c.Apply(st.Cmd)
	r.flush()
	r.commandDone(st, err)
}

// Advance is Runner.Advance that starts the `during` steps after the
// step in progress at their instants on the way (Run's behaviour).
func (p *Player) Advance(d int64) (bool, error) {
	for {
		st := p.Next()
		if st == nil || st.During == nil || p.running == nil || p.c == nil {
			return p.Runner.Advance(d)
		}
		at := p.started + *st.During
		if at > p.c.Now()+d {
			return p.Runner.Advance(d)
		}
		step := max(0, at-p.c.Now())
		done, err := p.Runner.Advance(step)
		d -= step
		if done || err != nil {
			return done, err
		}
		p.next++
		p.beginDuring(st)
	}
}
