package kafka

import (
	"fmt"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// api is one Kafka API this listener answers: the version range it
// advertises in ApiVersions and its handler.
type api struct {
	key      int16
	min, max int16
	handle   func(cx *reqCtx, req kmsg.Request) (*plan, error)
}

// plan is what a handler makes of one request: the core request to send
// through the simulated network (its Conn and Correlation are filled in
// by the connection), and finish, which turns the core's reply into the
// wire response. noReply marks an acks=0 Produce: Kafka sends nothing.
// labelNote, if set, ends the request's label in the picture (a Fetch's
// session id and epoch).
type plan struct {
	req       core.BrokerRequest
	finish    func(rep *core.Reply) kmsg.Response
	noReply   bool
	labelNote string
}

// apis is the table that dispatch and ApiVersions read. Each api_*.go
// file registers its entry in init, with the versions its header lists.
var apis = map[int16]*api{}

func register(key, min, max int16, h func(cx *reqCtx, req kmsg.Request) (*plan, error)) {
	apis[key] = &api{key: key, min: min, max: max, handle: h}
}

// local is the plan for an API the core does not model: the request
// still travels the simulated network (an OtherRequest, so latency and
// faults apply and the picture shows it) and answer builds the response
// when the broker's empty reply arrives, from the cluster as it is then.
func local(cx *reqCtx, answer func() kmsg.Response) *plan {
	return &plan{
		req:    core.BrokerRequest{Other: &core.OtherRequest{API: cx.label()}},
		finish: func(*core.Reply) kmsg.Response { return answer() },
	}
}

// label names a request in the simulated network: API and version.
func (cx *reqCtx) label() string {
	return fmt.Sprintf("%s v%d", kmsg.NameForKey(cx.h.key), cx.h.version)
}
