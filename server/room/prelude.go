package room

// LocalNetwork is the Prelude of the room `kafkasim serve` serves to real
// Kafka clients: those clients and the brokers they talk to are all on
// one machine, where a real round trip takes well under a millisecond.
//
//   - net.latency.ms=1: the simulated brokers' own links (replication,
//     the controller, ZooKeeper) take one virtual millisecond a hop, as
//     fast as the clock can make them (it has no finer step), where
//     scenarios, lessons and the browser app keep the 2 ms default.
//   - net.client.latency.ms=0: a real client's link is a real TCP
//     connection, whose latency is already in every request's journey;
//     the simulation adds none on top (a `net delay` or split still
//     applies to it).
//
// A real client's acks=all produce then takes the replication's two
// hops, about 2 ms (the followers' fetch answered, the next one made),
// where the 2 ms default would give it four hops of 2 ms. A scenario
// that sets either itself keeps its own.
const LocalNetwork = "set net.latency.ms=1 net.client.latency.ms=0\n"
