package kafka

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kafkasim/kafkasim/core"
)

// python3Kafka is Debian's python3 with kafka-python (package
// python3-kafka, 2.0), which .ci/run installs. Outside CI a machine
// without it skips TestKafkaPython; in CI (CI set) it fails.
func python3Kafka(t *testing.T) string {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import kafka").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s cannot import kafka-python (%v): .ci/run installs python3-kafka", py, err)
		}
		t.Skipf("kafka-python not installed (apt-get install python3-kafka; .ci/run does): %v", err)
	}
	return py
}

// TestKafkaPython: kafka-python 2.0 probes the broker's version itself
// and talks in old, non-flexible versions (JoinGroup v2, which predates
// MEMBER_ID_REQUIRED: KIP-394's answer would be an error it does not
// know). Against a 0.11, a 3.9 and a 4.0 cluster it produces records with keys,
// headers and timestamps (gzip, acks=all), reads every one back through a
// consumer group and commits.
func TestKafkaPython(t *testing.T) {
	py := python3Kafka(t)
	script, err := filepath.Abs(filepath.Join("testdata", "kafkapython", "smoke.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version, mode string
		api           string // what kafka-python infers from ApiVersions
	}{
		{"0.11", "zk", "[0,11,0]"},
		{"3.9", "kraft", "[2,4,0]"}, // kafka-python 2.0's newest guess
		// Every version kafka-python 2.0 picks for a broker it takes for
		// 2.4 is one 4.0 kept (KIP-896 took kafka-python 2.0.2 among the
		// clients whose versions it keeps): Produce v7, Fetch v10,
		// ListOffsets v1, OffsetCommit v2, OffsetFetch v1, JoinGroup v2.
		{"4.0", "kraft", "[2,4,0]"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			b := threeBrokers(t, tc.version, tc.mode, core.CreateTopic{Topic: "py", Partitions: 3, RF: 3})
			_, addr := startServer(t, b, 3)
			out := runClient(t, "kafka-python", nil, py, script, strings.Join(addrs(addr, 3), ","), "py", "30")
			var res struct {
				API                         []int
				Partitions, Read, Committed int
				Bad                         []any
			}
			if err := json.Unmarshal([]byte(lastLines(out, 1)), &res); err != nil {
				t.Fatalf("kafka-python output %q: %v", out, err)
			}
			api, _ := json.Marshal(res.API)
			if string(api) != tc.api || res.Partitions != 3 || res.Read != 30 || len(res.Bad) != 0 || res.Committed != 30 {
				t.Fatalf("kafka-python: %+v (api %s, want %s)", res, api, tc.api)
			}
		})
	}
}

// TestKafkaPythonRebalance: two kafka-python consumers share a group on a
// 3.9 cluster with old group versions (JoinGroup v2, SyncGroup v1,
// Heartbeat v1, LeaveGroup v1): when c2 joins, c1 gives up partitions;
// when c2 leaves, c1 takes them all back; the group reads every record
// (at least once: auto-commit keeps positions across the rebalances).
func TestKafkaPythonRebalance(t *testing.T) {
	py := python3Kafka(t)
	script, err := filepath.Abs(filepath.Join("testdata", "kafkapython", "rebalance.py"))
	if err != nil {
		t.Fatal(err)
	}
	b := threeBrokers(t, "3.9", "kraft", core.CreateTopic{Topic: "py", Partitions: 3, RF: 3})
	_, addr := startServer(t, b, 3)
	out := runClient(t, "kafka-python", nil, py, script, strings.Join(addrs(addr, 3), ","), "py", "30")
	var res map[string]struct {
		Seen     int
		Assigned [][]int
	}
	if err := json.Unmarshal([]byte(lastLines(out, 1)), &res); err != nil {
		t.Fatalf("kafka-python output %q: %v", out, err)
	}
	c1, c2 := res["c1"], res["c2"]
	all := "[0 1 2]"
	if len(c1.Assigned) < 3 || fmt.Sprint(c1.Assigned[0]) != all || fmt.Sprint(c1.Assigned[len(c1.Assigned)-1]) != all ||
		len(c2.Assigned) == 0 || len(c2.Assigned[0]) == 0 || len(c2.Assigned[0])+len(c1.Assigned[1]) != 3 {
		t.Fatalf("assignments: c1 %v, c2 %v: want c1 to share the partitions with c2, then take them back", c1.Assigned, c2.Assigned)
	}
	if c1.Seen+c2.Seen < 30 {
		t.Fatalf("the group read %d+%d records, want all 30", c1.Seen, c2.Seen)
	}
}

// TestKafkaPythonDeleteDisabled: on the 0.11 preset, whose
// delete.topic.enable is false (true only from 1.0), kafka-python's
// delete_topics waits out its timeout and gets REQUEST_TIMED_OUT, the
// topic left in place, as 0.11 answered before KIP-322 gave 2.1
// TOPIC_DELETION_DISABLED (KAFKA-5975); it got INVALID_REQUEST at once,
// 2.1's answer below DeleteTopics v3. On 3.9 with deletion disabled by
// `set` it is TOPIC_DELETION_DISABLED at once, to kafka-python 2.0
// (DeleteTopics v3 there) an UnknownError: it predates code 73.
func TestKafkaPythonDeleteDisabled(t *testing.T) {
	py := python3Kafka(t)
	script, err := filepath.Abs(filepath.Join("testdata", "kafkapython", "delete_topic.py"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		version, mode, want string
		minMS, maxMS        int
	}{
		{"0.11", "zk", "RequestTimedOutError", 1500, 10000},
		{"3.9", "kraft", "UnknownError", 0, 1000},
	} {
		t.Run(tc.version, func(t *testing.T) {
			b := newWallBackend(t, core.Options{Brokers: 3, Seed: 1, Version: tc.version, Metadata: tc.mode},
				core.Set{Configs: map[string]string{"delete.topic.enable": "false"}}, core.CreateTopic{Topic: "kept", Partitions: 1, RF: 3})
			_, addr := startServer(t, b, 3)
			out := runClient(t, "kafka-python", nil, py, script, strings.Join(addrs(addr, 3), ","), "kept", "1500")
			var res struct {
				Error  string
				MS     int
				Listed bool
			}
			if err := json.Unmarshal([]byte(lastLines(out, 1)), &res); err != nil {
				t.Fatalf("kafka-python output %q: %v", out, err)
			}
			if res.Error != tc.want || res.MS < tc.minMS || res.MS > tc.maxMS || !res.Listed {
				t.Fatalf("delete_topics: %+v, want %s after %d-%d ms and the topic kept", res, tc.want, tc.minMS, tc.maxMS)
			}
		})
	}
}

// TestKafkaPythonAlterConfigs: kafka-python 2.0's alter_configs
// (AlterConfigs) sets a live topic's retention.ms and
// min.insync.replicas, answers UNKNOWN_TOPIC_OR_PARTITION for a topic
// that does not exist, and describe_configs then shows the new values
// with source DYNAMIC_TOPIC_CONFIG. The API was not served: the script
// failed in alter_configs.
func TestKafkaPythonAlterConfigs(t *testing.T) {
	py := python3Kafka(t)
	script, err := filepath.Abs(filepath.Join("testdata", "kafkapython", "alter_configs.py"))
	if err != nil {
		t.Fatal(err)
	}
	b := threeBrokers(t, "3.9", "zk", core.CreateTopic{Topic: "pc", Partitions: 1, RF: 3})
	_, addr := startServer(t, b, 3)
	out := runClient(t, "kafka-python", nil, py, script, strings.Join(addrs(addr, 3), ","), "pc")
	var res struct {
		Codes     []int
		Described map[string][2]any
	}
	if err := json.Unmarshal([]byte(lastLines(out, 1)), &res); err != nil {
		t.Fatalf("kafka-python output %q: %v", out, err)
	}
	if fmt.Sprint(res.Codes) != "[0 3]" {
		t.Errorf("alter error codes %v, want [0 3]", res.Codes)
	}
	for k, want := range map[string]string{"retention.ms": "60000", "min.insync.replicas": "2"} {
		if d := res.Described[k]; d[0] != want || d[1] != float64(1) {
			t.Errorf("%s described %v, want [%s 1] (DYNAMIC_TOPIC_CONFIG)", k, d, want)
		}
	}
	if got := minISR(t, b, "pc"); got != 2 {
		t.Errorf("the core's min.insync.replicas = %d, want 2", got)
	}
}
