package kafka

// ApiVersions (key 18), v0-v4.
//
// Answers the version table of the cluster's preset (versions.go: what
// both the handlers in apis.go and that Kafka release support). v3+
// carries the client's software name and version (KIP-511), kept on the
// connection so the picture labels its traffic. The response header is
// never flexible, whatever the version, so a client that does not know
// this broker yet can read it; a version above the preset's (v4 for 3.9,
// v3 for 2.8, v1 for 0.11) gets a v0 response with UNSUPPORTED_VERSION
// and ApiVersions' own range only, and the client retries with one it
// and we support, as librdkafka and franz-go do.

import "github.com/twmb/franz-go/pkg/kmsg"

func init() { register(18, 0, 4, handleApiVersions) }

func handleApiVersions(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.ApiVersionsRequest)
	if req.Version >= 3 {
		cx.c.mu.Lock()
		cx.c.softwareName, cx.c.softwareVersion = req.ClientSoftwareName, req.ClientSoftwareVersion
		cx.c.mu.Unlock()
	}
	return local(cx, func() kmsg.Response { return apiVersionsResponse(cx.s.versionsNow(), req.Version, 0) }), nil
}
