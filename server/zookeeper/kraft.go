package zookeeper

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/kafkasim/kafkasim/core"
)

// A KRaft-mode cluster has no ZooKeeper. A ZooKeeper client that connects
// anyway gets a session on a read-only view made for the learner: / and
// /README say that there is no ZooKeeper and why, and /__cluster_metadata
// lists the KRaft metadata log (the records the controller quorum wrote),
// one child per record, named by its offset, whose data is the record.
// Writes get NOAUTH, watches are accepted and never fire, and nothing
// travels the simulated network (there is no "zk" host to talk to).

const kraftLogNode = "__cluster_metadata"

const kraftReadme = `kafkasim: this cluster runs in KRaft mode (metadata=kraft): there is NO ZooKeeper.
Brokers register with the controller quorum, and the cluster's metadata
(brokers, topics, partitions, leaders, ISRs) is a log: the records of the
__cluster_metadata topic, listed here under /__cluster_metadata (one child
per record, named by its offset; get one to read it). In kafkasim, "print
metadata" shows the same log. There is no /controller either: the active
controller is the quorum's Raft leader, so the ZooKeeper-mode demonstration
"delete /controller" has nothing to delete here. Start a cluster with
metadata=zk (versions 0.8 to 3.9) to see the ZooKeeper tree Kafka used
before KRaft, and to force a controller election by deleting /controller.
`

// kraftSessions hands out session ids for the KRaft view (ZooKeeper's
// format, server id 2 so they never look like the ensemble's).
type kraftSessions struct {
	mu   sync.Mutex
	next int64
}

func (k *kraftSessions) open(resume, timeout int64) (int64, int64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	timeout = min(max(timeout, core.ZKMinSessionTimeout), core.ZKMaxSessionTimeout)
	if resume != 0 {
		return resume, timeout
	}
	if k.next == 0 {
		k.next = 2 << 56
	}
	k.next++
	return k.next, timeout
}

// kraftPasswd is the view's session password: no secret is kept, any
// password resumes a session.
func kraftPasswd(int64) []byte { return make([]byte, 16) }

// kraftNode returns the view's znode at path: its data and children.
func kraftNode(cl *core.Cluster, path string) (data string, kids []string, st core.ZKStat, ok bool) {
	recs := cl.MetadataLog()
	switch path {
	case "/":
		return kraftReadme, []string{"README", kraftLogNode}, core.ZKStat{NumChildren: 2, DataLength: int32(len(kraftReadme))}, true
	case "/README":
		return kraftReadme, nil, core.ZKStat{DataLength: int32(len(kraftReadme))}, true
	case "/" + kraftLogNode:
		kids = make([]string, 0, len(recs))
		var last int64
		for _, r := range recs {
			off, _ := recordOffset(r)
			kids = append(kids, fmt.Sprintf("%010d", off))
			last = off
		}
		return "", kids, core.ZKStat{NumChildren: int32(len(kids)), Pzxid: last, Cversion: int32(last)}, true
	}
	name, found := strings.CutPrefix(path, "/"+kraftLogNode+"/")
	if !found {
		return "", nil, core.ZKStat{}, false
	}
	want, err := strconv.ParseInt(name, 10, 64)
	if err != nil || fmt.Sprintf("%010d", want) != name {
		return "", nil, core.ZKStat{}, false
	}
	for _, r := range recs {
		if off, text := recordOffset(r); off == want {
			return text, nil, core.ZKStat{Czxid: off, Mzxid: off, Pzxid: off, DataLength: int32(len(text))}, true
		}
	}
	return "", nil, core.ZKStat{}, false
}

// recordOffset splits a metadata log line ("12 RegisterBrokerRecord ...").
func recordOffset(r string) (int64, string) {
	n, text, _ := strings.Cut(r, " ")
	off, _ := strconv.ParseInt(n, 10, 64)
	return off, text
}

// serveKraft answers a request from the KRaft view at once.
func serveKraft(cl *core.Cluster, r *request, spec opSpec) ([]byte, bool) {
	var zxid int64
	if recs := cl.MetadataLog(); len(recs) > 0 {
		zxid, _ = recordOffset(recs[len(recs)-1])
	}
	fail := func(code int32) []byte { return header(r.xid, zxid, code).done() }
	switch spec.class {
	case cWrite:
		return fail(errNoAuth), false
	case cOther:
		return fail(errUnimplemented), false
	}
	data, kids, st, ok := kraftNode(cl, r.path)
	switch r.op {
	case 11:
		return header(xidPing, zxid, errOK).done(), false
	case -11:
		return header(r.xid, zxid, errOK).done(), true
	case 100:
		return header(xidAuth, zxid, errOK).done(), false
	case 101, 105:
		return header(xidSetWatches, zxid, errOK).done(), false
	case 9:
		return header(r.xid, zxid, errOK).ustring(r.path).done(), false
	case 103:
		return header(r.xid, zxid, errOK).strings(nil).done(), false
	case 17, 18:
		return fail(errNoWatcher), false
	}
	if !ok {
		return fail(errNoNode), false
	}
	switch r.op {
	case 3:
		return header(r.xid, zxid, errOK).stat(st).done(), false
	case 4:
		return header(r.xid, zxid, errOK).buffer([]byte(data)).stat(st).done(), false
	case 8:
		return header(r.xid, zxid, errOK).strings(kids).done(), false
	case 12:
		return header(r.xid, zxid, errOK).strings(kids).stat(st).done(), false
	case 6:
		return header(r.xid, zxid, errOK).int32(1).int32(permRead).ustring("world").ustring("anyone").stat(st).done(), false
	case 104:
		n := len(kids)
		if r.path == "/" {
			n += len(cl.MetadataLog())
		}
		return header(r.xid, zxid, errOK).int32(int32(n)).done(), false
	}
	return fail(errUnimplemented), false
}
