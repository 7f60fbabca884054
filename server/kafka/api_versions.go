package kafka

// ApiVersions (key 18), v0-v4.
//
// Answers the table in apis.go. v3+ carries the client's software name and
// version (KIP-511), kept on the connection so the picture can label its
// traffic. The response header is never flexible, whatever the version,
// so a client that does not know this broker yet can read it; a version
// above v4 gets a v0 response with UNSUPPORTED_VERSION and the ranges (the
// client retries with one it and we support, as librdkafka and franz-go
// do).

import (
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(18, 0, 4, handleApiVersions) }

func handleApiVersions(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ApiVersionsRequest)
	if req.Version >= 3 {
		cx.c.mu.Lock()
		cx.c.softwareName, cx.c.softwareVersion = req.ClientSoftwareName, req.ClientSoftwareVersion
		cx.c.mu.Unlock()
	}
	return local(cx, func() kmsg.Response { return apiVersionsResponse(req.Version, 0) }), nil
}

func apiVersionsResponse(version int16, errCode int16) *kmsg.ApiVersionsResponse {
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = version
	resp.ErrorCode = errCode
	keys := make([]int, 0, len(apis))
	for k := range apis {
		keys = append(keys, int(k))
	}
	sort.Ints(keys)
	for _, k := range keys {
		a := apis[int16(k)]
		resp.ApiKeys = append(resp.ApiKeys, kmsg.ApiVersionsResponseApiKey{ApiKey: a.key, MinVersion: a.min, MaxVersion: a.max})
	}
	return resp
}
