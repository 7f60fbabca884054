package zookeeper

import (
	"reflect"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"

	"github.com/kafkasim/kafkasim/core"
)

// TestGoZKTopicDeletion: what go-zookeeper sees of a topic deletion that
// waits for a crashed broker: a child watch on /admin/delete_topics fires
// when the topic is marked, /admin/delete_topics/orders and
// /brokers/topics/orders stay while broker 2 is down, and once it is back
// a data watch on /brokers/topics/orders fires NodeDeleted and both
// znodes are gone.
func TestGoZKTopicDeletion(t *testing.T) {
	c := newZKClusterT(t, "3.9")
	d, s := serveCluster(t, c, Config{})
	conn, _ := dial(t, s, 30*time.Second)
	d.apply(t, core.CrashBroker{Broker: 2})
	d.jump(t, 8000) // past zookeeper.session.timeout.ms=6000
	if ok, _, err := conn.Exists("/admin/delete_topics"); err != nil || ok {
		t.Fatalf("/admin/delete_topics before any deletion: %v %v", ok, err)
	}
	_, _, gone, err := conn.GetW("/brokers/topics/orders")
	if err != nil {
		t.Fatal(err)
	}
	d.apply(t, core.DeleteTopic{Topic: "orders"})
	d.jump(t, 1000)
	kids, _, err := conn.Children("/admin/delete_topics")
	if err != nil || !reflect.DeepEqual(kids, []string{"orders"}) {
		t.Fatalf("ls /admin/delete_topics while broker 2 is down: %v %v", kids, err)
	}
	if ok, _, err := conn.Exists("/brokers/topics/orders"); err != nil || !ok {
		t.Fatalf("/brokers/topics/orders went while a replica could not be deleted: %v %v", ok, err)
	}
	select {
	case ev := <-gone:
		t.Fatalf("watch fired while the deletion waits: %+v", ev)
	case <-time.After(50 * time.Millisecond):
	}
	d.apply(t, core.Restart{Broker: 2})
	d.jump(t, 2000)
	select {
	case ev := <-gone:
		if ev.Type != gozk.EventNodeDeleted || ev.Path != "/brokers/topics/orders" {
			t.Fatalf("watch: %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no NodeDeleted for /brokers/topics/orders after broker 2 returned")
	}
	kids, _, err = conn.Children("/admin/delete_topics")
	if err != nil || len(kids) != 0 {
		t.Fatalf("ls /admin/delete_topics after the deletion: %v %v", kids, err)
	}
	if topics, _, err := conn.Children("/brokers/topics"); err != nil || len(topics) != 0 {
		t.Fatalf("ls /brokers/topics after the deletion: %v %v", topics, err)
	}
}
