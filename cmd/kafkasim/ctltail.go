package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/kafkasim/kafkasim/server/client"
	"github.com/kafkasim/kafkasim/server/protocol"
)

// tail prints the room's events as they come: text lines like
// `kafkasim run`'s trace, or one JSON object a line (each event, and a
// {"type":"snapshot",...} line whenever the stream restarts from one).
func (e *ctlEnv) tail(args []string) error {
	fs := subFlags("tail", e)
	asJSON := fs.Bool("json", false, "JSON lines")
	verbose := fs.Bool("v", false, "every event, wire messages included")
	n := fs.Int("n", 0, "stop after N events (0: no limit)")
	dur := fs.Duration("for", 0, "stop after this long (0: until Ctrl-C)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() != 0 {
		return usagef("no arguments")
	}
	conn, err := e.dial(false)
	if err != nil {
		return err
	}
	defer conn.Close()
	var stop <-chan time.Time
	if *dur > 0 {
		stop = time.After(*dur)
	}
	count := 0
	enc := json.NewEncoder(e.stdout)
	for {
		var m client.Message
		var ok bool
		select {
		case m, ok = <-conn.Stream():
			if !ok {
				return fmt.Errorf("the connection closed: %v", conn.Err())
			}
		case <-stop:
			return nil
		case <-e.ctx.Done():
			return nil
		}
		switch m.Type {
		case protocol.TEvents:
			var ev protocol.Events
			if err := m.Decode(&ev); err != nil {
				return err
			}
			for i := range ev.Events {
				ev := &ev.Events[i]
				if !*verbose && ev.Verbose() {
					continue
				}
				if *asJSON {
					enc.Encode(ev)
				} else {
					fmt.Fprintf(e.stdout, "%9s  %s\n", core.FormatTime(ev.At), ev.Text())
				}
				if count++; *n > 0 && count >= *n {
					return nil
				}
			}
		case protocol.TSnapshot:
			var s protocol.Snapshot
			if err := m.Decode(&s); err != nil {
				return err
			}
			if *asJSON {
				enc.Encode(s)
			} else {
				fmt.Fprintf(e.stdout, "%9s  -- %s snapshot of %s (generation %d): %d broker(s), %d topic(s)\n",
					core.FormatTime(s.Snapshot.At), s.Reason, s.Scenario, s.Gen, len(s.Snapshot.Brokers), len(s.Snapshot.Topics))
			}
		case protocol.TError, protocol.TLesson, protocol.TPrediction, protocol.TReveal, protocol.TClock:
			if *asJSON {
				fmt.Fprintf(e.stdout, "%s\n", m.Raw)
			} else {
				fmt.Fprintf(e.stdout, "           -- %s\n", m.Raw)
			}
		}
	}
}
