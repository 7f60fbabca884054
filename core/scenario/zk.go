package scenario

import (
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// parseZK parses `zk delete PATH [version=N] [session=0xID] [xid=N]
// [conn=ADDR]`: an outside ZooKeeper client's delete (core.ZKDelete). The
// room writes it when a real client deletes /controller, so a replay
// holds the same election; session, xid and conn say who sent it.
func parseZK(p *lineParser, st *Step) error {
	u := usage["zk"]
	if err := p.keyword(1, "delete", u); err != nil {
		return err
	}
	pw, err := p.arg(2, "znode PATH", u)
	if err != nil {
		return err
	}
	path, err := p.znodePath(pw)
	if err != nil {
		return err
	}
	o, err := p.options(p.words[3:], "zk", []optSpec{{name: "version"}, {name: "session"}, {name: "xid"}, {name: "conn"}}, passNone)
	if err != nil {
		return err
	}
	d := core.ZKDelete{Path: path, Version: -1}
	if w, ok := o.fields["version"]; ok {
		n, err := p.number(w, "version", -1, maxInt32)
		if err != nil {
			return err
		}
		d.Version = int32(n)
	}
	if w, ok := o.fields["session"]; ok {
		hex, ok := strings.CutPrefix(w.s, "0x")
		n, err := strconv.ParseInt(hex, 16, 64)
		if !ok || err != nil || n <= 0 {
			return p.errAt(w, "bad session %q: want a session id as ZooKeeper writes it (0x100000000000003)", w.s)
		}
		d.Session = n
	}
	if w, ok := o.fields["xid"]; ok {
		n, err := p.number(w, "xid", 0, maxInt32)
		if err != nil {
			return err
		}
		d.Xid = int32(n)
	}
	if w, ok := o.fields["conn"]; ok {
		d.Conn = w.s
	}
	st.Cmd = d
	return nil
}

// formatZKDelete writes a ZKDelete as parseZK reads it.
func formatZKDelete(x core.ZKDelete) (string, error) {
	w := []string{"delete", x.Path}
	if x.Version != -1 {
		w = append(w, "version="+strconv.Itoa(int(x.Version)))
	}
	if x.Session != 0 {
		w = append(w, "session=0x"+strconv.FormatInt(x.Session, 16))
	}
	if x.Xid != 0 {
		w = append(w, "xid="+strconv.Itoa(int(x.Xid)))
	}
	if x.Conn != "" {
		w = append(w, "conn="+x.Conn)
	}
	return join("zk", w...)
}
