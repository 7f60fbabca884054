package kafka

import (
	"encoding/binary"
	"net"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// apiVersionsOver sends ApiVersions at version (v3+ with a flexible
// request header and KIP-511 names) and decodes the v0-compatible answer.
func apiVersionsOver(t *testing.T, addr string, version int16) *kmsg.ApiVersionsResponse {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := kmsg.NewPtrApiVersionsRequest()
	req.Version, req.ClientSoftwareName, req.ClientSoftwareVersion = version, "test", "1"
	body := req.AppendTo(nil)
	if version >= 3 {
		body = append([]byte{0}, body...) // the header's empty tag section
	}
	c.Write(frame(18, version, 9, body))
	_, buf, err := readResponse(c, 5*time.Second)
	if err != nil {
		t.Fatalf("ApiVersions v%d: %v", version, err)
	}
	resp := kmsg.NewPtrApiVersionsResponse()
	resp.Version = version
	if len(buf) >= 2 && binary.BigEndian.Uint16(buf) == 35 {
		resp.Version = 0 // UNSUPPORTED_VERSION comes as v0
	}
	if err := resp.ReadFrom(buf); err != nil {
		t.Fatalf("ApiVersions v%d answer: %v", version, err)
	}
	return resp
}

// TestApiVersionsPerPreset: each preset advertises what its Kafka
// release had, within what the handlers speak (ranges copied from
// Kafka's message schemas at the 0.11.0.0, 2.8.0 and 3.9.0 tags, and
// KIP-896 for 4.0, whose group APIs' ranges are the 4.0.0 tag's but for
// JoinGroup v0-v1, back in 4.0.1, KAFKA-19444); an API
// the release lacked is absent and closes the
// connection; ApiVersions above the release's gets UNSUPPORTED_VERSION
// with ApiVersions' own range only, as Kafka answers (KIP-511).
func TestApiVersionsPerPreset(t *testing.T) {
	type r = [2]int16
	cases := []struct {
		preset, mode string
		want         map[int16]r // key: [min, max]; [-1, -1]: absent
	}{
		{"3.9", "kraft", map[int16]r{0: {0, 11}, 1: {4, 17}, 2: {1, 9}, 3: {0, 12}, 8: {2, 9}, 9: {1, 9}, 10: {0, 6}, 11: {0, 9}, 13: {0, 5}, 15: {0, 5}, 16: {0, 5}, 18: {0, 4}, 22: {0, 5}, 23: {2, 4}, 32: {0, 4}, 37: {0, 3}}},
		{"2.8", "zk", map[int16]r{0: {0, 9}, 1: {4, 12}, 2: {1, 6}, 3: {0, 11}, 8: {2, 8}, 9: {1, 7}, 10: {0, 3}, 11: {0, 7}, 15: {0, 5}, 16: {0, 4}, 18: {0, 3}, 20: {0, 6}, 32: {0, 4}}},
		{"0.11", "zk", map[int16]r{0: {0, 3}, 1: {4, 5}, 3: {0, 4}, 18: {0, 1}, 22: {0, 0}, 23: {-1, -1}, 37: {-1, -1}}},
		{"4.0", "kraft", map[int16]r{1: {4, 17}, 2: {1, 10}, 3: {0, 13}, 8: {2, 9}, 9: {1, 9}, 10: {0, 6}, 11: {0, 9}, 15: {0, 6}, 16: {0, 5}, 19: {2, 7}, 20: {1, 6}, 32: {1, 4}, 0: {0, 12}}},
	}
	for _, tc := range cases {
		b := newWallBackend(t, core.Options{Brokers: 1, Seed: 1, Version: tc.preset, Metadata: tc.mode})
		_, addr := startServer(t, b, 1)
		resp := apiVersionsOver(t, addr, 0)
		got := map[int16]r{}
		for _, k := range resp.ApiKeys {
			got[k.ApiKey] = r{k.MinVersion, k.MaxVersion}
		}
		for k, w := range tc.want {
			g, ok := got[k]
			if w[0] < 0 {
				if ok {
					t.Errorf("%s: %s advertised %v, want absent", tc.preset, kmsg.NameForKey(k), g)
				}
				continue
			}
			if g != w {
				t.Errorf("%s: %s v%d-v%d, want v%d-v%d", tc.preset, kmsg.NameForKey(k), g[0], g[1], w[0], w[1])
			}
		}
		if tc.preset == "0.11" {
			if v3 := apiVersionsOver(t, addr, 3); v3.ErrorCode != 35 || len(v3.ApiKeys) != 1 || v3.ApiKeys[0].ApiKey != 18 || v3.ApiKeys[0].MaxVersion != 1 {
				t.Errorf("0.11: ApiVersions v3 answered %d with %+v, want UNSUPPORTED_VERSION and ApiVersions v0-v1", v3.ErrorCode, v3.ApiKeys)
			}
			cp := kmsg.NewPtrCreatePartitionsRequest()
			if !closedAfter(t, addr, frame(37, 0, 1, cp.AppendTo(nil))) {
				t.Error("0.11: CreatePartitions (added in 1.0) did not close the connection")
			}
		}
		if tc.preset == "3.9" {
			if v3 := apiVersionsOver(t, addr, 3); v3.ErrorCode != 0 || len(v3.ApiKeys) != len(resp.ApiKeys) {
				t.Errorf("3.9: ApiVersions v3 answered %d with %d keys", v3.ErrorCode, len(v3.ApiKeys))
			}
		}
	}
}

// TestProduceListedFromV0: every preset lists Produce from v0, as Kafka
// does (4.0 too, KAFKA-18659, so that librdkafka compresses), while a
// Produce v0-v2 request closes the connection as any version outside
// the handler's range does: 4.0's SocketServer refuses it so, and this
// listener, speaking record batch v2 only, refuses it on older presets
// too, where Kafka would take the old message formats. v3 is answered.
func TestProduceListedFromV0(t *testing.T) {
	for _, preset := range []string{"3.9", "4.0"} {
		b := newWallBackend(t, core.Options{Brokers: 1, Seed: 1, Version: preset, Metadata: "kraft"})
		_, addr := startServer(t, b, 1)
		for _, k := range apiVersionsOver(t, addr, 3).ApiKeys {
			if k.ApiKey == 0 && k.MinVersion != 0 {
				t.Errorf("%s: Produce listed from v%d, want v0", preset, k.MinVersion)
			}
		}
		for v := int16(0); v <= 3; v++ {
			req := kmsg.NewPtrProduceRequest()
			req.Version, req.Acks, req.TimeoutMillis = v, 1, 1000
			if closed := closedAfter(t, addr, frame(0, v, 1, req.AppendTo(nil))); closed != (v < 3) {
				t.Errorf("%s: Produce v%d closed the connection: %v, want %v", preset, v, closed, v < 3)
			}
		}
	}
}
