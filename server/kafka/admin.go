package kafka

import (
	"context"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// coreError splits one of the core's "NAME: message" errors into a wire
// code and Kafka's message; an error without a Kafka name is
// INVALID_REQUEST with the core's words.
func coreError(err error) (int16, *string) {
	if err == nil {
		return 0, nil
	}
	msg := err.Error()
	if name, rest, ok := strings.Cut(msg, ": "); ok && name == strings.ToUpper(name) && !strings.ContainsAny(name, " ") {
		if code, known := errCodes[name]; known {
			return code, &rest
		}
	}
	return 42, &msg
}

// brokerDefault is a broker config's default in the catalog (num.partitions,
// default.replication.factor).
func brokerDefault(name string, fallback int) int {
	for _, c := range core.Accepted().Configs {
		if c.Name == name {
			if n, err := strconv.Atoi(c.Default); err == nil {
				return n
			}
		}
	}
	return fallback
}

// controllerCheck answers NOT_CONTROLLER (41) when, in ZooKeeper mode, the
// asked broker is not the controller: before KRaft's forwarding (KIP-590)
// admin requests had to reach the controller, which clients find in
// Metadata. In KRaft mode any broker forwards them.
func controllerCheck(cx *reqCtx) int16 {
	var mode string
	var ctrl int
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
		s := c.Snapshot()
		mode, ctrl = s.Metadata, s.Controller
	})
	if mode == "zk" && ctrl != cx.broker {
		return 41
	}
	return 0
}
