// Package kafka speaks the real Kafka wire protocol for kafkasim's
// simulated brokers, so unchanged Kafka clients (kcat and other
// librdkafka-based clients, franz-go, sarama, kafkajs) produce and consume
// against the simulated cluster.
//
// Each simulated broker gets a listener. A connection reads size-prefixed
// frames, decodes the request header and body with franz-go's kmsg, and
// dispatches on the API key through the table in apis.go (which also feeds
// ApiVersions). Handlers live one file per API (api_*.go), each with a
// header naming the versions it supports. Kafka wire types never enter
// core: a handler translates a request into the core's typed requests and
// the core's answer back into a kmsg response.
//
// Like a Kafka broker, a connection handles one request at a time and
// answers in order (SocketServer mutes a channel until its response is
// sent), so a long-polling Fetch holds back the requests queued behind it
// on the same connection; clients open separate connections for that.
//
// Bad input never crashes the listener nor touches other connections: a
// frame over the size limit, a truncated or garbage header, or an unknown
// API key closes that connection, as Kafka's SocketServer does; an
// unsupported version of a known API gets UNSUPPORTED_VERSION where the API
// allows it (ApiVersions answers v0 with the supported ranges) and a
// closed connection otherwise.
package kafka
