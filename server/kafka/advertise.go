package kafka

import (
	"fmt"
	"net"
	"os"
	"strings"
)

// MaxAdvertiseBytes bounds an advertised host name (DNS's 253, rounded).
const MaxAdvertiseBytes = 255

// AdvertisedHost is the host Metadata names for listeners on listenHost,
// given advertise (--kafka-advertise, "" if not set), as Kafka chooses
// it: advertised.listeners if set, else the listeners' own host
// (KafkaConfig.advertisedListeners). The 0.0.0.0 meta-address is refused
// either way (KafkaConfig.validateValues: "advertised.listeners cannot
// use the nonroutable meta-address 0.0.0.0", and the broker does not
// start); kafkasim refuses "::" alike. An empty listener host binds every
// interface and advertises the machine's name
// (ListenerInfo.withWildcardHostnamesResolved: InetAddress.getLocalHost()
// .getCanonicalHostName(); here os.Hostname, without the DNS round trip).
func AdvertisedHost(listenHost, advertise string) (string, error) {
	if advertise != "" {
		return checkAdvertise(advertise)
	}
	if listenHost == "" {
		name, err := os.Hostname()
		if err != nil || name == "" {
			return "", fmt.Errorf("the listener's host is empty, so it would advertise this machine's host name, which is unknown (%v): name the host clients reach", err)
		}
		return checkAdvertise(name)
	}
	return checkAdvertise(listenHost)
}

// checkAdvertise refuses what no client could connect to: the
// unspecified address, a port, characters no host name or address has
// (Kafka's listener syntax allows letters, digits and "-%._:").
func checkAdvertise(host string) (string, error) {
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
		return "", fmt.Errorf("cannot advertise the nonroutable meta-address %s (Kafka refuses it in advertised.listeners): name a routable address or host name clients reach", h)
	}
	if h == "" || len(h) > MaxAdvertiseBytes {
		return "", fmt.Errorf("advertised host %q: want a host name or address of 1-%d bytes", host, MaxAdvertiseBytes)
	}
	if strings.Contains(h, ":") && net.ParseIP(h) == nil {
		return "", fmt.Errorf("advertised host %q: want a host without a port (each broker advertises its own listener's port)", host)
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-%._:", r)) {
			return "", fmt.Errorf("advertised host %q: %q is in no host name or address", host, r)
		}
	}
	return h, nil
}
