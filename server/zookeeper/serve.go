package zookeeper

import (
	"strings"

	"github.com/kafkasim/kafkasim/core"
)

// ACL permissions (ZooDefs.Perms).
const (
	permRead = 1
	permAll  = 31
)

// acl is one ACL entry.
type acl struct {
	perms      int32
	scheme, id string
}

// kafkaACL is what getACL reports for every znode: the ACL Kafka sets with
// zookeeper.set.acl=true (ZkData.defaultAcls: everything for the brokers'
// principal, read for anyone). It is why outside writes get NOAUTH.
var kafkaACL = []acl{{permAll, "sasl", "kafka"}, {permRead, "world", "anyone"}}

// openACL is ZooKeeper's OPEN_ACL_UNSAFE, the ACL of the znodes the
// ensemble makes itself (/, /zookeeper, /zookeeper/quota): anyone may do
// anything. The open root is why a real client may delete /controller:
// ZooKeeper checks a delete against the parent's ACL.
var openACL = []acl{{permAll, "world", "anyone"}}

// aclOf is a znode's ACL.
func aclOf(path string) []acl {
	switch path {
	case "/", "/zookeeper", "/zookeeper/quota":
		return openACL
	}
	return kafkaACL
}

// Watcher types of checkWatches and removeWatches (WatcherType).
const (
	watchChildren = 1
	watchData     = 2
	watchAny      = 3
)

// serve answers a request at zk (on the cluster's goroutine, when the
// request arrives there). last says the connection closes after the reply.
func (c *conn) serve(zk *core.ZooKeeper, r *request, spec opSpec) (frame []byte, last bool) {
	zxid := zk.LastZxid()
	fail := func(code int32) []byte { return header(r.xid, zxid, code).done() }
	switch spec.class {
	case cWrite:
		c.s.cfg.Logf("zookeeper: session 0x%x: %s %s refused (NOAUTH): outside clients only read the simulated ensemble, except delete /controller", c.sid, spec.name, r.path)
		return fail(errNoAuth), false
	case cOther:
		return fail(errUnimplemented), false
	}
	watch := func(child bool) bool {
		if err := zk.Watch(c.sid, r.path, child); err != nil {
			c.s.cfg.Logf("zookeeper: %v", err)
			return false
		}
		return true
	}
	switch r.op {
	case 11: // ping
		return header(xidPing, zxid, errOK).done(), false
	case 3: // exists: sets a data watch whether or not the znode exists
		st, ok := zk.Exists(r.path)
		if r.watch && !watch(false) {
			return fail(errSystem), false
		}
		if !ok {
			return fail(errNoNode), false
		}
		return header(r.xid, zxid, errOK).stat(st).done(), false
	case 4: // getData
		data, st, ok := zk.Get(r.path)
		if !ok {
			return fail(errNoNode), false
		}
		if r.watch && !watch(false) {
			return fail(errSystem), false
		}
		return header(r.xid, zxid, errOK).buffer([]byte(data)).stat(st).done(), false
	case 8, 12: // getChildren, getChildren2
		kids, st, ok := zk.Children(r.path)
		if !ok {
			return fail(errNoNode), false
		}
		if r.watch && !watch(true) {
			return fail(errSystem), false
		}
		e := header(r.xid, zxid, errOK).strings(kids)
		if r.op == 12 {
			e.stat(st)
		}
		return e.done(), false
	case 6: // getACL
		st, ok := zk.Exists(r.path)
		if !ok {
			return fail(errNoNode), false
		}
		list := aclOf(r.path)
		e := header(r.xid, zxid, errOK).int32(int32(len(list)))
		for _, a := range list {
			e.int32(a.perms).ustring(a.scheme).ustring(a.id)
		}
		return e.stat(st).done(), false
	case 9: // sync: the simulated ensemble is one server, always in sync
		return header(r.xid, zxid, errOK).ustring(r.path).done(), false
	case 104: // getAllChildrenNumber
		if _, ok := zk.Exists(r.path); !ok {
			return fail(errNoNode), false
		}
		return header(r.xid, zxid, errOK).int32(int32(descendants(zk, r.path, 0))).done(), false
	case 103: // getEphemerals: an outside session owns none
		return header(r.xid, zxid, errOK).strings(nil).done(), false
	case 17, 18: // checkWatches, removeWatches
		child := r.watchType == watchChildren || r.watchType == watchAny
		data := r.watchType == watchData || r.watchType == watchAny
		if !child && !data {
			return fail(errBadArguments), false
		}
		if !zk.RemoveWatches(c.sid, r.path, child, data, r.op == 18) {
			return fail(errNoWatcher), false
		}
		return header(r.xid, zxid, errOK).done(), false
	case 100: // auth
		if r.scheme != "digest" {
			return header(xidAuth, zxid, errAuthFailed).done(), true
		}
		return header(xidAuth, zxid, errOK).done(), false
	case 101, 105: // setWatches, setWatches2
		if len(r.persist) > 0 {
			c.s.cfg.Logf("zookeeper: session 0x%x: %d persistent watches not re-set (addWatch is not supported)", c.sid, len(r.persist))
		}
		if err := zk.SetWatches(c.sid, r.zxid, r.data, r.exist, r.child); err != nil {
			c.s.cfg.Logf("zookeeper: %v", err)
			return header(xidSetWatches, zxid, errSystem).done(), false
		}
		return header(xidSetWatches, zxid, errOK).done(), false
	case -11: // closeSession
		zk.CloseSession(c.sid)
		return header(r.xid, zxid, errOK).done(), true
	}
	return fail(errUnimplemented), false
}

// maxDescendants bounds getAllChildrenNumber's walk (the tree is bounded
// too; this keeps one request's work small).
const maxDescendants = 1_000_000

// descendants counts the znodes below path.
func descendants(zk *core.ZooKeeper, path string, n int) int {
	kids, _, _ := zk.Children(path)
	prefix := path
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	for _, k := range kids {
		if n >= maxDescendants {
			return n
		}
		n = descendants(zk, prefix+k, n+1)
	}
	return n
}
