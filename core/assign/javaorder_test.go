package assign

import (
	"slices"
	"strings"
	"testing"
)

// javaHashMapOrders holds pairs of lines: keys in insertion order, then the
// iteration order of a java.util.HashMap after put()ting them in that order.
// Produced on this machine by /tmp/kv/Order.java under OpenJDK 17.0.15
// (HashMap<String,Integer>, default constructor, keySet() iteration).
// "AaAa", "AaBB", "BBAa", "BBBB" share one String.hashCode.
const javaHashMapOrders = `
consumer1 consumer2 consumer3 consumer4
consumer4 consumer3 consumer2 consumer1
BBBB AaAa BBAa AaBB x
x BBBB AaAa BBAa AaBB
c-0-0 c-919-9e3779b1 c-838-3c6ef362 c-757-daa66d13 c-676-78dde6c4
c-0-0 c-919-9e3779b1 c-838-3c6ef362 c-757-daa66d13 c-676-78dde6c4
c-0-0 c-919-9e3779b1 c-838-3c6ef362 c-757-daa66d13 c-676-78dde6c4 c-595-17156075 c-514-b54cda26 c-433-538453d7 c-352-f1bbcd88 c-271-8ff34739 c-190-2e2ac0ea c-109-cc623a9b
c-0-0 c-433-538453d7 c-352-f1bbcd88 c-919-9e3779b1 c-271-8ff34739 c-595-17156075 c-190-2e2ac0ea c-838-3c6ef362 c-757-daa66d13 c-676-78dde6c4 c-514-b54cda26 c-109-cc623a9b
c-0-0 c-919-9e3779b1 c-838-3c6ef362 c-757-daa66d13 c-676-78dde6c4 c-595-17156075 c-514-b54cda26 c-433-538453d7 c-352-f1bbcd88 c-271-8ff34739 c-190-2e2ac0ea c-109-cc623a9b c-28-6a99b44c
c-0-0 c-271-8ff34739 c-595-17156075 c-757-daa66d13 c-514-b54cda26 c-28-6a99b44c c-433-538453d7 c-352-f1bbcd88 c-919-9e3779b1 c-190-2e2ac0ea c-838-3c6ef362 c-676-78dde6c4 c-109-cc623a9b
c-0-0 c-919-9e3779b1 c-838-3c6ef362 c-757-daa66d13 c-676-78dde6c4 c-595-17156075 c-514-b54cda26 c-433-538453d7 c-352-f1bbcd88 c-271-8ff34739 c-190-2e2ac0ea c-109-cc623a9b c-28-6a99b44c c-947-8d12dfd c-866-a708a7ae c-785-4540215f c-704-e3779b10 c-623-81af14c1 c-542-1fe68e72 c-461-be1e0823 c-380-5c5581d4 c-299-fa8cfb85 c-218-98c47536 c-137-36fbeee7 c-56-d5336898
c-271-8ff34739 c-56-d5336898 c-623-81af14c1 c-757-daa66d13 c-514-b54cda26 c-704-e3779b10 c-433-538453d7 c-919-9e3779b1 c-190-2e2ac0ea c-299-fa8cfb85 c-676-78dde6c4 c-0-0 c-380-5c5581d4 c-595-17156075 c-866-a708a7ae c-137-36fbeee7 c-785-4540215f c-461-be1e0823 c-947-8d12dfd c-218-98c47536 c-28-6a99b44c c-352-f1bbcd88 c-838-3c6ef362 c-542-1fe68e72 c-109-cc623a9b
c-0-0 c-919-9e3779b1 c-838-3c6ef362 c-757-daa66d13 c-676-78dde6c4 c-595-17156075 c-514-b54cda26 c-433-538453d7 c-352-f1bbcd88 c-271-8ff34739 c-190-2e2ac0ea c-109-cc623a9b c-28-6a99b44c c-947-8d12dfd c-866-a708a7ae c-785-4540215f c-704-e3779b10 c-623-81af14c1 c-542-1fe68e72 c-461-be1e0823 c-380-5c5581d4 c-299-fa8cfb85 c-218-98c47536 c-137-36fbeee7 c-56-d5336898 c-975-736ae249 c-894-11a25bfa c-813-afd9d5ab c-732-4e114f5c c-651-ec48c90d c-570-8a8042be c-489-28b7bc6f c-408-c6ef3620 c-327-6526afd1 c-246-35e2982 c-165-a195a333 c-84-3fcd1ce4 c-3-de049695 c-922-7c3c1046 c-841-1a7389f7 c-760-b8ab03a8 c-679-56e27d59 c-598-f519f70a c-517-935170bb c-436-3188ea6c c-355-cfc0641d c-274-6df7ddce c-193-c2f577f c-112-aa66d130
c-408-c6ef3620 c-112-aa66d130 c-165-a195a333 c-271-8ff34739 c-623-81af14c1 c-841-1a7389f7 c-676-78dde6c4 c-489-28b7bc6f c-760-b8ab03a8 c-595-17156075 c-570-8a8042be c-866-a708a7ae c-137-36fbeee7 c-947-8d12dfd c-218-98c47536 c-894-11a25bfa c-28-6a99b44c c-732-4e114f5c c-246-35e2982 c-813-afd9d5ab c-542-1fe68e72 c-109-cc623a9b c-436-3188ea6c c-651-ec48c90d c-84-3fcd1ce4 c-56-d5336898 c-355-cfc0641d c-757-daa66d13 c-514-b54cda26 c-517-935170bb c-274-6df7ddce c-704-e3779b10 c-433-538453d7 c-193-c2f577f c-679-56e27d59 c-919-9e3779b1 c-598-f519f70a c-190-2e2ac0ea c-299-fa8cfb85 c-327-6526afd1 c-922-7c3c1046 c-0-0 c-380-5c5581d4 c-785-4540215f c-461-be1e0823 c-352-f1bbcd88 c-838-3c6ef362 c-3-de049695 c-975-736ae249
c-0-0 c-919-9e3779b1 c-838-3c6ef362 c-757-daa66d13 c-676-78dde6c4 c-595-17156075 c-514-b54cda26 c-433-538453d7 c-352-f1bbcd88 c-271-8ff34739 c-190-2e2ac0ea c-109-cc623a9b c-28-6a99b44c c-947-8d12dfd c-866-a708a7ae c-785-4540215f c-704-e3779b10 c-623-81af14c1 c-542-1fe68e72 c-461-be1e0823 c-380-5c5581d4 c-299-fa8cfb85 c-218-98c47536 c-137-36fbeee7 c-56-d5336898 c-975-736ae249 c-894-11a25bfa c-813-afd9d5ab c-732-4e114f5c c-651-ec48c90d c-570-8a8042be c-489-28b7bc6f c-408-c6ef3620 c-327-6526afd1 c-246-35e2982 c-165-a195a333 c-84-3fcd1ce4 c-3-de049695 c-922-7c3c1046 c-841-1a7389f7 c-760-b8ab03a8 c-679-56e27d59 c-598-f519f70a c-517-935170bb c-436-3188ea6c c-355-cfc0641d c-274-6df7ddce c-193-c2f577f c-112-aa66d130 c-31-489e4ae1 c-950-e6d5c492 c-869-850d3e43 c-788-2344b7f4 c-707-c17c31a5 c-626-5fb3ab56 c-545-fdeb2507 c-464-9c229eb8 c-383-3a5a1869 c-302-d891921a c-221-76c90bcb c-140-1500857c c-59-b337ff2d c-978-516f78de c-897-efa6f28f c-816-8dde6c40 c-735-2c15e5f1 c-654-ca4d5fa2 c-573-6884d953 c-492-6bc5304 c-411-a4f3ccb5 c-330-432b4666 c-249-e162c017 c-168-7f9a39c8 c-87-1dd1b379 c-6-bc092d2a c-925-5a40a6db c-844-f878208c c-763-96af9a3d c-682-34e713ee c-601-d31e8d9f c-520-71560750 c-439-f8d8101 c-358-adc4fab2 c-277-4bfc7463 c-196-ea33ee14 c-115-886b67c5 c-34-26a2e176 c-953-c4da5b27 c-872-6311d4d8 c-791-1494e89 c-710-9f80c83a c-629-3db841eb c-548-dbefbb9c c-467-7a27354d c-386-185eaefe c-305-b69628af c-224-54cda260 c-143-f3051c11 c-62-913c95c2 c-981-2f740f73
c-408-c6ef3620 c-330-432b4666 c-112-aa66d130 c-601-d31e8d9f c-6-bc092d2a c-869-850d3e43 c-140-1500857c c-735-2c15e5f1 c-707-c17c31a5 c-489-28b7bc6f c-305-b69628af c-467-7a27354d c-520-71560750 c-277-4bfc7463 c-760-b8ab03a8 c-866-a708a7ae c-947-8d12dfd c-218-98c47536 c-894-11a25bfa c-246-35e2982 c-62-913c95c2 c-221-76c90bcb c-542-1fe68e72 c-682-34e713ee c-109-cc623a9b c-629-3db841eb c-573-6884d953 c-651-ec48c90d c-84-3fcd1ce4 c-710-9f80c83a c-355-cfc0641d c-545-fdeb2507 c-143-f3051c11 c-978-516f78de c-514-b54cda26 c-274-6df7ddce c-704-e3779b10 c-492-6bc5304 c-598-f519f70a c-411-a4f3ccb5 c-299-fa8cfb85 c-791-1494e89 c-31-489e4ae1 c-380-5c5581d4 c-872-6311d4d8 c-59-b337ff2d c-461-be1e0823 c-950-e6d5c492 c-249-e162c017 c-352-f1bbcd88 c-383-3a5a1869 c-897-efa6f28f c-838-3c6ef362 c-464-9c229eb8 c-87-1dd1b379 c-358-adc4fab2 c-165-a195a333 c-816-8dde6c40 c-271-8ff34739 c-623-81af14c1 c-654-ca4d5fa2 c-841-1a7389f7 c-788-2344b7f4 c-224-54cda260 c-115-886b67c5 c-676-78dde6c4 c-439-f8d8101 c-196-ea33ee14 c-595-17156075 c-570-8a8042be c-137-36fbeee7 c-953-c4da5b27 c-763-96af9a3d c-28-6a99b44c c-732-4e114f5c c-813-afd9d5ab c-436-3188ea6c c-925-5a40a6db c-302-d891921a c-386-185eaefe c-168-7f9a39c8 c-56-d5336898 c-626-5fb3ab56 c-757-daa66d13 c-517-935170bb c-433-538453d7 c-193-c2f577f c-679-56e27d59 c-919-9e3779b1 c-190-2e2ac0ea c-844-f878208c c-327-6526afd1 c-922-7c3c1046 c-0-0 c-785-4540215f c-34-26a2e176 c-981-2f740f73 c-3-de049695 c-548-dbefbb9c c-975-736ae249
`

func TestHashMapOrderMatchesJava(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(javaHashMapOrders), "\n")
	for i := 0; i+1 < len(lines); i += 2 {
		ins, want := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		if got := hashMapOrderInserted(ins); !slices.Equal(got, want) {
			t.Errorf("n=%d: hashMapOrderInserted =\n%v\nwant (Java)\n%v", len(ins), got, want)
		}
	}
}

func TestHashMapOrderIgnoresInputOrder(t *testing.T) {
	a := hashMapOrder([]string{"BBBB", "AaAa", "x", "BBAa", "AaBB"})
	b := hashMapOrder([]string{"x", "AaBB", "BBAa", "AaAa", "BBBB"})
	if !slices.Equal(a, b) {
		t.Fatalf("hashMapOrder depends on input order: %v vs %v", a, b)
	}
	// Colliding keys come out in Java String order.
	if want := []string{"x", "AaAa", "AaBB", "BBAa", "BBBB"}; !slices.Equal(a, want) {
		t.Errorf("hashMapOrder = %v, want %v", a, want)
	}
}

func TestJavaCompare(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"a", "", 1},
		{"", "a", -1},
		{"abc", "abd", -1},
		{"consumer10", "consumer2", -1},
		{"é", "z", 1},
		// Java compares UTF-16 units: U+FFFF (0xFFFF) > U+1F600 (0xD83D 0xDE00).
		// OpenJDK 17: "\uFFFF".compareTo("\uD83D\uDE00") = 10178 > 0.
		{"\uffff", "😀", 1},
		{"😀", "😁", -1},
		{"\U00010000", "\ud7ff", 1},
	}
	for _, c := range cases {
		if got := javaCompare(c.a, c.b); got != c.want {
			t.Errorf("javaCompare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if strings.Compare("\uffff", "😀") != -1 {
		t.Errorf("Go byte order expected to differ from Java here")
	}
}
