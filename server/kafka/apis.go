package kafka

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// api is one Kafka API this listener answers: the version range it
// advertises in ApiVersions and its handler. A handler gets the decoded
// request (kmsg, version set) and returns the response to send, or nil
// for none (acks=0 Produce).
type api struct {
	key      int16
	min, max int16
	handle   func(cx *reqCtx, req kmsg.Request) (kmsg.Response, error)
}

// apis is the table that dispatch and ApiVersions read. Each api_*.go
// file registers its entry in init, with the versions its header lists.
var apis = map[int16]*api{}

func register(key, min, max int16, h func(cx *reqCtx, req kmsg.Request) (kmsg.Response, error)) {
	apis[key] = &api{key: key, min: min, max: max, handle: h}
}
