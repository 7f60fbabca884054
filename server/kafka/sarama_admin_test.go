package kafka

import (
	"errors"
	"testing"

	"github.com/IBM/sarama"
	"github.com/kafkasim/kafkasim/core"
)

// TestSaramaIncrementalAlterConfigAndElectLeaders: sarama's ClusterAdmin
// sets and deletes a live topic's min.insync.replicas
// (IncrementalAlterConfig), which the core applies; an APPEND to it is
// INVALID_CONFIG (no LIST config); ElectLeaders of a partition its
// preferred replica leads is ELECTION_NOT_NEEDED. Neither API was
// served: sarama failed with "The version of API is not supported".
func TestSaramaIncrementalAlterConfigAndElectLeaders(t *testing.T) {
	b := threeBrokers(t, "3.9", "zk", core.CreateTopic{Topic: "sc", Partitions: 1, RF: 3, Assign: [][]int{{1, 2, 3}}})
	_, addr := startServer(t, b, 3)
	cfg := saramaConfig()
	cfg.Version = sarama.V2_8_0_0
	adm, err := sarama.NewClusterAdmin(addrs(addr, 3), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	two := "2"
	set := map[string]sarama.IncrementalAlterConfigsEntry{"min.insync.replicas": {Operation: sarama.IncrementalAlterConfigsOperationSet, Value: &two}}
	if err := adm.IncrementalAlterConfig(sarama.TopicResource, "sc", set, false); err != nil {
		t.Fatalf("set: %v", err)
	}
	if got := minISR(t, b, "sc"); got != 2 {
		t.Errorf("min.insync.replicas after SET = %d, want 2", got)
	}
	del := map[string]sarama.IncrementalAlterConfigsEntry{"min.insync.replicas": {Operation: sarama.IncrementalAlterConfigsOperationDelete}}
	if err := adm.IncrementalAlterConfig(sarama.TopicResource, "sc", del, false); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if got := minISR(t, b, "sc"); got != 1 {
		t.Errorf("min.insync.replicas after DELETE = %d, want the default 1", got)
	}
	app := map[string]sarama.IncrementalAlterConfigsEntry{"min.insync.replicas": {Operation: sarama.IncrementalAlterConfigsOperationAppend, Value: &two}}
	if err := adm.IncrementalAlterConfig(sarama.TopicResource, "sc", app, false); !errors.Is(err, sarama.ErrInvalidConfig) {
		t.Errorf("append: %v, want INVALID_CONFIG", err)
	}
	res, err := adm.ElectLeaders(sarama.PreferredElection, map[string][]int32{"sc": {0}})
	if err != nil {
		t.Fatal(err)
	}
	if r := res["sc"][0]; r == nil || !errors.Is(r.ErrorCode, sarama.ErrElectionNotNeeded) {
		t.Errorf("preferred election of sc-0: %+v", res)
	}
}
