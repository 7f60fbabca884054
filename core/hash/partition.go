package hash

// KeyPartition returns the partition Kafka's Java producer picks for a
// non-null key serialised as the UTF-8 bytes of key:
// toPositive(murmur2(key)) % numPartitions over all partitions, available or
// not (BuiltInPartitioner.partitionForKey; DefaultPartitioner 0.9–3.2).
// The result is in [0, numPartitions); numPartitions must be positive.
func KeyPartition(key string, numPartitions int) int {
	return int(ToPositive(Murmur2String(key))) % numPartitions
}

// CoordinatorPartition returns the __consumer_offsets partition that stores
// groupID, whose leader is the group coordinator:
// Utils.abs(groupId.hashCode) % numPartitions (GroupMetadataManager.partitionFor,
// GroupCoordinatorService.partitionFor). Utils.abs is Math.abs with
// MIN_VALUE -> 0, not the 0x7fffffff mask, so negative hash codes differ from
// ToPositive. The result is in [0, numPartitions); numPartitions must be positive.
func CoordinatorPartition(groupID string, numPartitions int) int {
	return int(Abs(JavaStringHashCode(groupID))) % numPartitions
}
