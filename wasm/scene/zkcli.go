package scene

import (
	"fmt"
	"strings"
)

// ZKClientHost is the host of outside ZooKeeper clients (zkCli.sh, kazoo,
// ... connected to `kafkasim serve`; core.ZKClientHost). A client whose
// connection is known has a host of its own, ZKClientHost + "@" + its
// address, so each is drawn apart; messages of a scenario's `zk` command
// come from ZKClientHost itself.
const ZKClientHost = "zkcli"

// IsZKClientHost reports whether host is an outside ZooKeeper client's.
func IsZKClientHost(host string) bool {
	return host == ZKClientHost || strings.HasPrefix(host, ZKClientHost+"@")
}

// ZKClientHostOf is the scene host of the outside ZooKeeper client on
// connection conn ("" for a scenario's zk command).
func ZKClientHostOf(conn string) string {
	if conn == "" {
		return ZKClientHost
	}
	return ZKClientHost + "@" + conn
}

// ZKClient is one outside ZooKeeper client the scene shows: its Host (as
// in Messages), its connection's address, its session id (0x...; "" before
// it has one) and its last request as a label ("getChildren2
// /brokers/ids").
type ZKClient struct {
	Host    string `json:"host"`
	Addr    string `json:"addr,omitempty"`
	Session string `json:"session,omitempty"`
	Last    string `json:"last,omitempty"`
}

// MaxZKClients bounds Scene.ZKClients.
const MaxZKClients = 64

func (s *Scene) validateZKClients() error {
	if err := count("zkClients", len(s.ZKClients), MaxZKClients); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, c := range s.ZKClients {
		if !IsZKClientHost(c.Host) || len(c.Host) > MaxName || len(c.Addr) > MaxName || len(c.Session) > MaxName || len(c.Last) > MaxName {
			return fmt.Errorf("scene: zkClients[%d]: host %q is not a ZooKeeper client's, or a text longer than %d bytes", i, c.Host, MaxName)
		}
		if seen[c.Host] {
			return fmt.Errorf("scene: zkClients[%d]: duplicate host %q", i, c.Host)
		}
		seen[c.Host] = true
	}
	for i, m := range s.Messages {
		if len(m.Label) > MaxName {
			return fmt.Errorf("scene: messages[%d]: label longer than %d bytes", i, MaxName)
		}
	}
	return nil
}
