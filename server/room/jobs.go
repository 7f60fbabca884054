package room

import (
	"fmt"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/scenario"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// job is a script in progress: its steps run in order; a `wait` blocks it
// until the room's virtual clock reaches the wait's end, so a script's
// waits follow the wall clock (× speed). Jobs run side by side: a command
// sent while a lesson's script waits runs at once.
type job struct {
	name  string
	steps []scenario.Step
	i     int
	until int64 // virtual time the current wait ends; 0 when not waiting
	res   protocol.Result
	done  func(protocol.Result) // called once, on the loop goroutine
}

func (j *job) cancel(why string) {
	if j.done == nil {
		return
	}
	j.res.OK = false
	j.res.Lines = append(j.res.Lines, protocol.LineResult{Error: "cancelled: " + why})
	j.done(j.res)
	j.done = nil
}

// nextWake is the earliest end of a job's wait.
func (s *loopState) nextWake() (int64, bool) {
	var t int64
	ok := false
	for _, j := range s.jobs {
		if j.until > 0 && (!ok || j.until < t) {
			t, ok = j.until, true
		}
	}
	return t, ok
}

// runJobs runs every job's steps until each waits or ends.
func (s *loopState) runJobs() {
	kept := s.jobs[:0]
	for _, j := range s.jobs {
		if s.step(j) {
			kept = append(kept, j)
		} else if j.done != nil {
			j.res.At = s.c.Now()
			j.done(j.res)
			j.done = nil
		}
	}
	for i := len(kept); i < len(s.jobs); i++ {
		s.jobs[i] = nil
	}
	s.jobs = kept
}

// step runs j's steps from where it stopped; false when j has ended.
func (s *loopState) step(j *job) bool {
	if j.until > 0 {
		if s.c.Now() < j.until {
			return true
		}
		j.until = 0
	}
	for j.i < len(j.steps) {
		if s.faulted {
			j.res.OK = false
			j.res.Lines = append(j.res.Lines, protocol.LineResult{Line: j.steps[j.i].Line, At: s.c.Now(), Error: "the cluster stopped"})
			return false
		}
		st := &j.steps[j.i]
		j.i++
		if w, ok := st.Cmd.(core.Wait); ok {
			if w.Duration > 0 {
				j.until = s.c.Now() + w.Duration
				return true
			}
			continue
		}
		lr := s.runStep(st)
		if lr.Error != "" || lr.Failed != "" {
			j.res.OK = false
		}
		if lr.Error != "" || lr.Failed != "" || lr.Output != "" {
			j.res.Lines = append(j.res.Lines, lr)
		}
	}
	return false
}

// runStep runs one step that is not a wait: a command (recorded in the
// history when it works), an expect or a print.
func (s *loopState) runStep(st *scenario.Step) protocol.LineResult {
	lr := protocol.LineResult{Line: st.Line, At: s.c.Now()}
	switch {
	case st.Cmd != nil:
		if err := s.hist.room(); err != nil {
			lr.Error = err.Error()
			return lr
		}
		at := s.c.Now()
		if err := s.runner.Step(st); err != nil {
			lr.Error = err.Error()
			return lr
		}
		if e := s.runner.CmdErr(); e != "" {
			lr.Error = e
			return lr
		}
		s.hist.add(at, s.c.Now(), st.Text)
	case st.Expect != nil:
		n := len(s.runner.Failures())
		if err := s.runner.Step(st); err != nil {
			lr.Error = err.Error()
		} else if f := s.runner.Failures(); len(f) > n {
			lr.Failed = f[len(f)-1].Msg
		}
	case st.Print != nil:
		text, err := s.c.Describe(st.Print.Target)
		if st.Print.Offset >= 0 {
			text, err = s.c.DescribeRead(st.Print.Target, st.Print.Offset)
		}
		if err != nil {
			lr.Error = err.Error()
		} else {
			lr.Output = strings.TrimRight(text, "\n")
		}
	}
	return lr
}

// applyCmd applies a command that did not come as a scenario line (a
// protocol listener's), recording it when it can be written as one.
func (s *loopState) applyCmd(cmd core.Command) error {
	if err := s.hist.room(); err != nil {
		return err
	}
	if _, ok := cmd.(core.Wait); ok {
		return fmt.Errorf("wait is not a command for Apply: the room's clock moves time")
	}
	at := s.c.Now()
	if err := s.c.Apply(cmd); err != nil {
		return err
	}
	line, err := scenario.FormatCommand(cmd)
	if err != nil {
		s.hist.incomplete = true
		line = ""
	}
	s.hist.add(at, s.c.Now(), line)
	return nil
}

// ParseCommands parses scenario lines sent as one command message: any
// lines but `cluster` (a new cluster is Load's). Errors are *scenario.Error.
func ParseCommands(text string) ([]scenario.Step, error) {
	sc, err := scenario.Parse(text)
	if err != nil {
		return nil, err
	}
	for _, st := range sc.Steps {
		if st.Cluster != nil {
			return nil, &scenario.Error{Line: st.Line, Col: 1, Msg: "a cluster line makes a new cluster: load a scenario (or reset) instead"}
		}
	}
	if len(sc.Steps) == 0 {
		return nil, &scenario.Error{Line: 1, Col: 1, Msg: "no command"}
	}
	return sc.Steps, nil
}
