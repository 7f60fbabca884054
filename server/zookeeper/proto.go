package zookeeper

import "fmt"

// Error codes (KeeperException.Code) the listener answers with.
const (
	errOK            int32 = 0
	errSystem        int32 = -1
	errUnimplemented int32 = -6
	errBadArguments  int32 = -8
	errNoNode        int32 = -101
	errNoAuth        int32 = -102
	errBadVersion    int32 = -103
	errNotEmpty      int32 = -111
	errSessExpired   int32 = -112
	errAuthFailed    int32 = -115
	errNoWatcher     int32 = -121
)

// Special xids (ClientCnxn).
const (
	xidNotification int32 = -1
	xidPing         int32 = -2
	xidAuth         int32 = -4
	xidSetWatches   int32 = -8
)

// field is one field of a request body, in wire order.
type field int

const (
	fPath      field = iota // ustring
	fWatch                  // boolean
	fZxid                   // long: SetWatches' relativeZxid
	fData                   // vector<ustring>: data watches
	fExist                  // vector<ustring>: exist watches
	fChild                  // vector<ustring>: child watches
	fPersist                // vector<ustring>: persistent watches (SetWatches2)
	fPersistR               // vector<ustring>: persistent recursive watches (SetWatches2)
	fAuthType               // int
	fScheme                 // ustring
	fAuth                   // buffer
	fWatchType              // int: removeWatches' watcher type
	fVersion                // int: delete's expected version
)

// class says how the listener treats an operation.
type class int

const (
	cRead  class = iota // answered from the simulated tree
	cWrite              // refused: outside clients only read (NOAUTH)
	cOther              // not supported (UNIMPLEMENTED)
)

// opSpec describes one ZooKeeper operation: its name (as ZooDefs.OpCode
// has it, also the message kind the browser shows, prefixed "Zk"), how it
// is treated, and its request body's fields.
type opSpec struct {
	name   string
	class  class
	fields []field
}

// ops is the table of every operation the listener knows, by opcode. An
// opcode missing here is unknown: the connection is closed, as a
// ZooKeeper server does with a packet of unknown type.
var ops = map[int32]opSpec{
	1:   {"create", cWrite, []field{fPath}},
	2:   {"delete", cWrite, []field{fPath, fVersion}}, // deleting /controller is taken (deleteCommand)
	3:   {"exists", cRead, []field{fPath, fWatch}},
	4:   {"getData", cRead, []field{fPath, fWatch}},
	5:   {"setData", cWrite, []field{fPath}},
	6:   {"getACL", cRead, []field{fPath}},
	7:   {"setACL", cWrite, []field{fPath}},
	8:   {"getChildren", cRead, []field{fPath, fWatch}},
	9:   {"sync", cRead, []field{fPath}},
	11:  {"ping", cRead, nil},
	12:  {"getChildren2", cRead, []field{fPath, fWatch}},
	13:  {"check", cWrite, []field{fPath}},
	14:  {"multi", cWrite, nil},
	15:  {"create2", cWrite, []field{fPath}},
	16:  {"reconfig", cWrite, nil},
	17:  {"checkWatches", cRead, []field{fPath, fWatchType}},
	18:  {"removeWatches", cRead, []field{fPath, fWatchType}},
	19:  {"createContainer", cWrite, []field{fPath}},
	20:  {"deleteContainer", cWrite, []field{fPath}},
	21:  {"createTTL", cWrite, []field{fPath}},
	22:  {"multiRead", cOther, nil},
	100: {"auth", cRead, []field{fAuthType, fScheme, fAuth}},
	101: {"setWatches", cRead, []field{fZxid, fData, fExist, fChild}},
	102: {"sasl", cOther, nil},
	103: {"getEphemerals", cRead, []field{fPath}},
	104: {"getAllChildrenNumber", cRead, []field{fPath}},
	105: {"setWatches2", cRead, []field{fZxid, fData, fExist, fChild, fPersist, fPersistR}},
	106: {"addWatch", cOther, nil},
	107: {"whoAmI", cOther, nil},
	-11: {"closeSession", cRead, nil},
}

// request is one decoded request: its header and whichever body fields its
// operation has.
type request struct {
	xid, op   int32
	path      string
	watch     bool
	zxid      int64
	data      []string
	exist     []string
	child     []string
	persist   []string
	authType  int32
	scheme    string
	auth      []byte
	watchType int32
	version   int32
}

// decodeRequest decodes a request frame (without its length). Of a write
// only the path is read (when it has one): it is refused whatever else it
// holds.
func decodeRequest(frame []byte) (*request, opSpec, error) {
	d := &decoder{b: frame}
	r := &request{xid: d.int32(), op: d.int32()}
	if d.err != nil {
		return nil, opSpec{}, fmt.Errorf("request header: %w", d.err)
	}
	spec, ok := ops[r.op]
	if !ok {
		return r, opSpec{}, fmt.Errorf("unknown opcode %d", r.op)
	}
	for _, f := range spec.fields {
		switch f {
		case fPath:
			r.path = d.ustring()
		case fWatch:
			r.watch = d.bool()
		case fZxid:
			r.zxid = d.int64()
		case fData:
			r.data = d.strings()
		case fExist:
			r.exist = d.strings()
		case fChild:
			r.child = d.strings()
		case fPersist, fPersistR:
			r.persist = append(r.persist, d.strings()...)
		case fAuthType:
			r.authType = d.int32()
		case fScheme:
			r.scheme = d.ustring()
		case fAuth:
			r.auth = d.buffer()
		case fWatchType:
			r.watchType = d.int32()
		case fVersion:
			r.version = d.int32()
		}
	}
	if d.err != nil {
		return r, spec, fmt.Errorf("%s request: %w", spec.name, d.err)
	}
	return r, spec, nil
}

// connectRequest is the first frame of a connection.
type connectRequest struct {
	protocolVersion int32
	lastZxidSeen    int64
	timeout         int32
	sessionID       int64
	passwd          []byte
	readOnly        bool
	hasReadOnly     bool // the client sent the readOnly flag (3.4+ clients)
}

func decodeConnect(frame []byte) (*connectRequest, error) {
	d := &decoder{b: frame}
	c := &connectRequest{protocolVersion: d.int32(), lastZxidSeen: d.int64(), timeout: d.int32(), sessionID: d.int64(), passwd: d.buffer()}
	if len(d.b) > 0 {
		c.readOnly, c.hasReadOnly = d.bool(), true
	}
	switch {
	case d.err != nil:
		return nil, fmt.Errorf("connect request: %w", d.err)
	case len(d.b) > 0:
		return nil, fmt.Errorf("connect request: %d bytes left over", len(d.b))
	case c.protocolVersion != 0:
		return nil, fmt.Errorf("connect request: protocol version %d (want 0)", c.protocolVersion)
	case c.timeout < 0:
		return nil, fmt.Errorf("connect request: negative session timeout %d", c.timeout)
	}
	return c, nil
}

// connectResponse encodes the answer to a connect request; an expired or
// refused session is timeout 0, session 0 and a zero password.
func connectResponse(timeout int32, session int64, passwd []byte, withReadOnly bool) []byte {
	if passwd == nil {
		passwd = make([]byte, 16)
	}
	e := newFrame().int32(0).int32(timeout).int64(session).buffer(passwd)
	if withReadOnly {
		e.bool(false)
	}
	return e.done()
}

// header starts a reply frame.
func header(xid int32, zxid int64, err int32) *encoder {
	return newFrame().int32(xid).int64(zxid).int32(err)
}

// watcherEvent encodes a watch notification (state 3: SyncConnected).
func watcherEvent(typ int32, path string, zxid int64) []byte {
	return header(xidNotification, zxid, errOK).int32(typ).int32(3).ustring(path).done()
}

// codeOf is the code of a core error name (core.ZKReply.Err).
func codeOf(name string) int32 {
	for _, c := range []int32{errOK, errSystem, errNoNode, errBadVersion, errNotEmpty, errSessExpired} {
		if errName(c) == name || name == "" && c == errOK {
			return c
		}
	}
	return errSystem
}

// errName is an error code as zkCli prints it (KeeperException.Code).
func errName(code int32) string {
	switch code {
	case errOK:
		return "OK"
	case errSystem:
		return "SYSTEMERROR"
	case errUnimplemented:
		return "UNIMPLEMENTED"
	case errBadArguments:
		return "BADARGUMENTS"
	case errNoNode:
		return "NONODE"
	case errNoAuth:
		return "NOAUTH"
	case errAuthFailed:
		return "AUTHFAILED"
	case errNoWatcher:
		return "NOWATCHER"
	case errBadVersion:
		return "BADVERSION"
	case errNotEmpty:
		return "NOTEMPTY"
	case errSessExpired:
		return "SESSIONEXPIRED"
	}
	return fmt.Sprint(code)
}
