package main

import (
	"context"
	"net"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kafkasim/kafkasim/internal/zktest"
)

// TestServeZooKeeper: `kafkasim serve --zookeeper ADDR` lets a ZooKeeper
// client read the served cluster's ensemble; a busy address is reported
// and the rest is served anyway.
func TestServeZooKeeper(t *testing.T) {
	sc := writeFile(t, "zk.ksim", "cluster brokers=3 seed=2 version=2.8 metadata=zk\ntopic create orders partitions=1 rf=3\n")
	_, banner := startServe(t, "--scenario", sc, "--zookeeper", "127.0.0.1:0")
	m := regexp.MustCompile(`zkCli.sh -server (127\.0\.0\.1:\d+)`).FindStringSubmatch(banner)
	if m == nil {
		t.Fatalf("no ZooKeeper address in the banner:\n%s", banner)
	}
	conn, _ := zktest.MustSession(t, m[1], 20*time.Second)
	var kids []string
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		kids, _, err = conn.Children("/brokers/topics")
		if err == nil && len(kids) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || !reflect.DeepEqual(kids, []string{"orders"}) {
		t.Fatalf("ls /brokers/topics: %v %v", kids, err)
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuf
	ready := make(chan string, 1)
	done := make(chan int, 1)
	go func() {
		done <- serve(ctx, []string{"--listen", "127.0.0.1:0", "--no-app", "--zookeeper", busy.Addr().String()}, &out, &errb, func(a string) { ready <- a })
	}()
	select {
	case a := <-ready:
		if code, _, errs := runCtl(t, "http://"+a, "", "snapshot"); code != 0 {
			t.Fatalf("the server did not serve with the ZooKeeper port busy: %s", errs)
		}
	case code := <-done:
		t.Fatalf("serve exited %d with the ZooKeeper port busy: %s", code, errb.String())
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not start")
	}
	if !strings.Contains(errb.String(), "no ZooKeeper listener on "+busy.Addr().String()+": the address is in use") {
		t.Fatalf("no word about the busy port: %s", errb.String())
	}
	cancel()
	<-done
}
