package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/core/check"
	"github.com/kafkasim/kafkasim/core/scenario"
)

// jsonStep is the line `run --json` prints before a step's events.
type jsonStep struct {
	Type string `json:"type"` // "step"
	Line int    `json:"line"`
	Text string `json:"text"`
}

// jsonFailure is a failed expectation or command, at the step it failed.
type jsonFailure struct {
	Type string `json:"type"` // "failure"
	Line int    `json:"line"`
	Msg  string `json:"msg"`
}

// jsonSnapshot is the cluster's state at the end of the run.
type jsonSnapshot struct {
	Type     string         `json:"type"` // "snapshot"
	Snapshot *core.Snapshot `json:"snapshot"`
}

// jsonChecker is the last line: what the invariant checker found.
type jsonChecker struct {
	Type       string            `json:"type"` // "checker"
	Violations []check.Violation `json:"violations"`
}

// runScriptJSON is runScript for `run --json`: one JSON object a line,
// a "step" before each step's events, every event as core.Event encodes
// it (wire messages with sentAt/deliverAt included), a "failure" for each
// failure, the final "snapshot" of the cluster (core.Snapshot) and a
// "checker" line. Exit codes and stderr are as for
// runScript.
func runScriptJSON(file, src string, opts scenario.RunOptions, stdout, stderr io.Writer) int {
	s, err := scenario.Parse(src)
	if err != nil {
		fmt.Fprintf(stderr, "%s:%v\n", file, err)
		return 2
	}
	enc := json.NewEncoder(stdout)
	opts.NoTrace = true
	opts.OnEvent = func(e *core.Event) { enc.Encode(e) }
	r := scenario.NewRunner(opts)
	seen := 0
	failures := func() {
		for _, f := range r.Failures()[seen:] {
			enc.Encode(jsonFailure{"failure", f.Line, f.Msg})
		}
		seen = len(r.Failures())
	}
	for i := range s.Steps {
		st := &s.Steps[i]
		enc.Encode(jsonStep{"step", st.Line, st.Text})
		if err := r.Step(st); err != nil {
			return report(file, nil, err, stderr)
		}
		failures()
	}
	res := r.Finish()
	failures()
	enc.Encode(jsonSnapshot{"snapshot", res.Cluster.Snapshot()})
	if !opts.NoCheck {
		vs := check.All(res.Cluster)
		if vs == nil {
			vs = []check.Violation{}
		}
		enc.Encode(jsonChecker{"checker", vs})
	}
	return report(file, res, nil, stderr)
}
