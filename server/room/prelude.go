package room

// LocalNetwork is the Prelude of the room `kafkasim serve` serves to real
// Kafka clients: a simulated network as fast as the clock can make it,
// one virtual millisecond a hop (net.latency.ms has no finer step),
// since those clients and the brokers they talk to are all on one
// machine, where a real round trip takes well under a millisecond. A
// real client's acks=all produce then takes four hops, about 4 ms (to
// the leader, the followers' fetch answered and the next one made, the
// answer back), as it would against a local Kafka, instead of the 8 ms
// of the 2 ms default that scenarios, lessons and the browser app keep.
// A scenario that sets net.latency.ms itself keeps its own.
const LocalNetwork = "set net.latency.ms=1\n"
