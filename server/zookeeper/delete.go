package zookeeper

import (
	"context"
	"fmt"
	"time"

	"github.com/kafkasim/kafkasim/core"
)

// Applier is a Driver that also records commands (server/room.Room's
// Apply): a delete of /controller goes through it, so the room's history
// keeps it and a replay holds the same election. A Driver without it has
// the command applied through Do, unrecorded.
type Applier interface {
	Apply(ctx context.Context, cmd core.Command) error
}

// takesDelete reports whether a request is the one write the listener
// takes from outside: deleting /controller (to force a controller
// election), on a ZooKeeper-mode cluster (c.kraft is set before the
// first request is read).
func (c *conn) takesDelete(r *request) bool {
	return !c.kraft && r.op == 2 && r.path == core.ZKControllerPath
}

// deleteController sends the delete to the core as a core.ZKDelete
// command; the answer comes back as the session's Reply (notify).
func (c *conn) deleteController(r *request) {
	var cmd core.ZKDelete
	ok := false
	err := c.s.do(func(cl *core.Cluster) {
		switch {
		case c.closed.Load():
		case cl != c.cluster:
			c.close("the served cluster was replaced (reset or load): its ZooKeeper sessions are gone")
		default:
			ok = true
			cmd = core.ZKDelete{Path: r.path, Version: r.version, Session: c.sid, Xid: r.xid, Conn: c.label()}
		}
	})
	if err != nil || !ok {
		if err != nil {
			c.close(err.Error())
		}
		return
	}
	if err := c.s.apply(cmd); err != nil {
		c.s.cfg.Logf("zookeeper: session 0x%x: delete %s: %v", cmd.Session, cmd.Path, err)
		c.send(header(r.xid, 0, errSystem).done())
		return
	}
	c.s.cfg.Logf("zookeeper: session 0x%x (%s) deletes %s: the brokers' controller watches fire and they elect a controller", cmd.Session, cmd.Conn, cmd.Path)
}

// reply writes the answer to a write the session sent as a command.
func (c *conn) reply(r *core.ZKReply) {
	c.send(header(r.Xid, r.Zxid, codeOf(r.Err)).done())
}

// label names the connection in the core's events: the client's address.
func (c *conn) label() string { return c.nc.RemoteAddr().String() }

// apply applies a command, recorded when the driver records commands.
func (s *Server) apply(cmd core.Command) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if a, ok := s.d.(Applier); ok {
		return a.Apply(ctx, cmd)
	}
	var err error
	if derr := s.d.Do(ctx, func(c *core.Cluster) { err = c.Apply(cmd) }); derr != nil {
		return fmt.Errorf("cluster unavailable: %w", derr)
	}
	return err
}
