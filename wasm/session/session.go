package session

import (
	"errors"
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core/scenario"
)

// Limits on a session.
const (
	MaxBranches = 32
	// MaxScriptSteps bounds one branch's script (a learner typing or a
	// page-API caller looping).
	MaxScriptSteps = 100_000
)

// Branch is one line of history: a script and how far it was played.
// A fork copies its parent's script up to the fork point, adds what the
// learner did there, and keeps the rest of the parent's script, so the
// two differ only by that act.
type Branch struct {
	ID      int    `json:"id"`
	Name    string `json:"name"`
	Parent  int    `json:"parent"` // -1 for the first
	ForkAt  int64  `json:"forkAt"` // virtual ms where it left its parent
	Change  string `json:"change"` // what the learner did there
	Horizon int64  `json:"horizon"`
	header  []string
	steps   []scenario.Step
}

// Script renders the branch as a scenario: the loaded script's header
// comments, then one line per step.
func (b *Branch) Script() string {
	var sb strings.Builder
	for _, h := range b.header {
		sb.WriteString(h + "\n")
	}
	for _, st := range b.steps {
		sb.WriteString(st.Text + "\n")
	}
	return sb.String()
}

// Session is the browser's timeline: branches, the current one, and a
// driver playing it at the current time.
type Session struct {
	opts     StoreOptions
	branches []*Branch
	cur      *Branch
	drv      *Driver

	cps           []checkpoint // parked drivers (checkpoint.go)
	builder       *Driver      // Prepare's replay toward builderGoal
	builderBranch int
	builderGoal   int64
}

// ErrNoSession is returned before anything was loaded.
var ErrNoSession = errors.New("no scenario loaded")

// New returns an empty session; Load starts it.
func New(opts StoreOptions) *Session { return &Session{opts: opts} }

// Load replaces everything with a new script (its first step must be
// `cluster`). Errors are *scenario.Error (line:column) where they point
// into the text.
func (s *Session) Load(text string) error {
	sc, err := scenario.Parse(text)
	if err != nil {
		return err
	}
	if len(sc.Steps) == 0 {
		return &scenario.Error{Line: 1, Col: 1, Msg: "empty script: the first line must be `cluster brokers=N ...`"}
	}
	if sc.Steps[0].Cluster == nil {
		return &scenario.Error{Line: sc.Steps[0].Line, Col: 1, Msg: "the first command must be `cluster brokers=N ...`"}
	}
	for _, st := range sc.Steps[1:] {
		if st.Cluster != nil {
			return &scenario.Error{Line: st.Line, Col: 1, Msg: "cluster given twice: a script has one cluster line, first"}
		}
	}
	if len(sc.Steps) > MaxScriptSteps {
		return &scenario.Error{Line: sc.Steps[MaxScriptSteps].Line, Col: 1, Msg: fmt.Sprintf("too many steps (max %d)", MaxScriptSteps)}
	}
	d, err := NewDriver(sc.Steps, s.opts)
	if err != nil {
		return err
	}
	b := &Branch{ID: 1, Name: "main", Parent: -1, header: headerComments(text), steps: sc.Steps}
	s.branches, s.cur, s.drv = []*Branch{b}, b, d
	s.dropCheckpoints(-1)
	return nil
}

// headerComments returns the script's leading comment lines.
func headerComments(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		t := strings.TrimSpace(l)
		if !strings.HasPrefix(t, "#") {
			break
		}
		out = append(out, t)
	}
	return out
}

// Loaded reports whether a script was loaded.
func (s *Session) Loaded() bool { return s.drv != nil }

// Driver is the current branch's driver (nil before Load).
func (s *Session) Driver() *Driver { return s.drv }

// Branch is the current branch.
func (s *Session) Branch() *Branch { return s.cur }

// Branches lists every branch, oldest first.
func (s *Session) Branches() []*Branch { return s.branches }

// Now is the current virtual time.
func (s *Session) Now() int64 {
	if s.drv == nil {
		return 0
	}
	return s.drv.Now()
}

// RunTo plays the current branch forward to t (t >= Now).
func (s *Session) RunTo(t int64) error {
	if s.drv == nil {
		return ErrNoSession
	}
	err := s.drv.RunTo(t)
	s.syncBranch()
	s.noteEdits()
	return err
}

// syncBranch copies the driver's script (it changes as the learner acts)
// and horizon into the branch.
func (s *Session) syncBranch() {
	s.cur.steps = s.drv.Steps()
	if n := s.drv.Now(); n > s.cur.Horizon {
		s.cur.Horizon = n
	}
}

// Step runs to the next trace event (see Driver.Step).
func (s *Session) Step() (bool, error) {
	if s.drv == nil {
		return false, ErrNoSession
	}
	ok := s.drv.Step()
	s.syncBranch()
	s.noteEdits()
	return ok, s.drv.Fault()
}

// GoTo moves the current branch to virtual time t: forward by playing
// on, backward by replaying the script from the latest checkpoint at or
// before t, else from the seed (checkpoint.go). Either way the driver it
// leaves is parked as a checkpoint, and a checkpoint between now and a
// forward t is resumed rather than played to.
func (s *Session) GoTo(t int64) error {
	if s.drv == nil {
		return ErrNoSession
	}
	if t < 0 {
		t = 0
	}
	s.noteEdits()
	now := s.drv.Now()
	if t >= now {
		if d := s.resume(s.cur, now+1, t); d != nil {
			s.park(s.cur.ID, s.drv)
			s.drv = d
		}
		return s.RunTo(t)
	}
	d := s.resume(s.cur, 0, t)
	if d == nil {
		var err error
		if d, err = NewDriver(s.cur.steps, s.opts); err != nil {
			return err
		}
	}
	s.park(s.cur.ID, s.drv)
	s.drv = d
	return s.RunTo(t)
}

// Command parses line and runs it now. At the branch's horizon it joins
// the script; in the past (after a seek back) it forks a new branch that
// keeps the rest of the script, and the old branch stays as it was.
// Print lines are answered and not recorded. Errors pointing into the
// line are *scenario.Error with the column.
func (s *Session) Command(line string) (StepResult, error) {
	if s.drv == nil {
		return StepResult{}, ErrNoSession
	}
	st, err := scenario.ParseLine(line, 1)
	if err != nil {
		return StepResult{}, err
	}
	if st == nil {
		return StepResult{}, &scenario.Error{Line: 1, Col: 1, Msg: "empty command"}
	}
	if st.Cluster != nil {
		return StepResult{}, &scenario.Error{Line: 1, Col: 1, Msg: "a session has one cluster: load a new scenario to start another"}
	}
	if st.Print != nil {
		out, msg := s.drv.print(st.Print)
		return StepResult{At: s.Now(), Output: out, Error: msg}, nil
	}
	if len(s.drv.Steps()) >= MaxScriptSteps {
		return StepResult{}, fmt.Errorf("the script is full (%d steps)", MaxScriptSteps)
	}
	if s.Now() < s.cur.Horizon {
		if err := s.fork(st.Text); err != nil {
			return StepResult{}, err
		}
	}
	s.noteEdits()
	res, err := s.drv.Insert(*st)
	var be *BlockedError
	if errors.As(err, &be) {
		if qerr := s.drv.Queue(*st); qerr != nil {
			return StepResult{}, qerr
		}
		res = StepResult{At: s.Now(), Queued: true, Output: "queued: " + be.Error() + "; it runs when that completes"}
		err = nil
	}
	s.syncBranch()
	s.noteEdits()
	return res, err
}

// fork starts a new branch at the current time: a copy of the current
// script (the driver's, which Insert will change) with a fresh horizon.
func (s *Session) fork(change string) error {
	if len(s.branches) >= MaxBranches {
		return fmt.Errorf("too many branches (max %d): delete one first", MaxBranches)
	}
	id := 1
	for _, b := range s.branches {
		id = max(id, b.ID+1)
	}
	// The driver's steps are shared with the current branch: copy them
	// so that Insert changes only the new branch's.
	steps := append([]scenario.Step(nil), s.drv.Steps()...)
	s.drv.steps = steps
	nb := &Branch{ID: id, Name: fmt.Sprintf("fork %d", id), Parent: s.cur.ID, ForkAt: s.Now(),
		Change: change, Horizon: s.Now(), header: s.cur.header, steps: steps}
	s.branches = append(s.branches, nb)
	s.cur = nb
	return nil
}

// Switch makes branch id current, at the same virtual time (replaying it).
func (s *Session) Switch(id int) error {
	b := s.find(id)
	if b == nil {
		return fmt.Errorf("no branch %d", id)
	}
	t := s.Now()
	s.noteEdits()
	to := min(t, max(b.Horizon, 0))
	d := s.resume(b, 0, to)
	if d == nil {
		var err error
		if d, err = NewDriver(b.steps, s.opts); err != nil {
			return err
		}
	}
	s.park(s.cur.ID, s.drv)
	s.cur, s.drv = b, d
	return s.RunTo(to)
}

// Delete removes branch id (not the current one).
func (s *Session) Delete(id int) error {
	if s.cur != nil && s.cur.ID == id {
		return fmt.Errorf("branch %d is the current branch", id)
	}
	for i, b := range s.branches {
		if b.ID == id {
			s.branches = append(s.branches[:i], s.branches[i+1:]...)
			s.dropCheckpoints(id)
			return nil
		}
	}
	return fmt.Errorf("no branch %d", id)
}

func (s *Session) find(id int) *Branch {
	for _, b := range s.branches {
		if b.ID == id {
			return b
		}
	}
	return nil
}

// Replay returns a new driver for branch id played to t, leaving the
// session as it is (for comparing branches side by side).
func (s *Session) Replay(id int, t int64) (*Driver, error) {
	b := s.find(id)
	if b == nil {
		return nil, fmt.Errorf("no branch %d", id)
	}
	d, err := NewDriver(b.steps, s.opts)
	if err != nil {
		return nil, err
	}
	return d, d.RunTo(t)
}

// Script is the current branch as a scenario, up to the current time: a
// free run past the script's end becomes a final wait, so that running
// the script ends where the learner is.
func (s *Session) Script() string {
	if s.drv == nil {
		return ""
	}
	text := s.cur.Script()
	if d := s.drv; d.Done() && d.Now() > d.lastEnd {
		for _, w := range waitSteps(d.Now() - d.lastEnd) {
			text += w.Text + "\n"
		}
	}
	return text
}
