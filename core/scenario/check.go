package scenario

import (
	"errors"

	"github.com/kafkasim/kafkasim/core"
)

// Check evaluates an expectation against a cluster as it is now, without
// a run around it: it records nothing and changes nothing. It reports
// whether e holds and what the cluster has, written as e's Want would be.
// lastErr is what `expect error` compares with: the error of the command
// the caller considers previous ("" when it succeeded). Lessons use Check
// for the conditions of their predictions and tasks, on whatever cluster
// the learner has.
func Check(c *core.Cluster, e *Expect, lastErr string) (ok bool, got string, err error) {
	if c == nil {
		return false, "", errors.New("no cluster")
	}
	if e == nil {
		return false, "", errors.New("no expectation")
	}
	r := &Runner{c: c, res: &Result{}, lastErr: lastErr}
	got, err = r.actual(e)
	if err != nil {
		return false, "", err
	}
	return matches(e, got), got, nil
}
