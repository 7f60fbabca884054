package core

import (
	"encoding/json"
	"slices"
	"strconv"
	"testing"
)

// TestCatalogMatchesApply: what the catalog says is valid is exactly what
// New and Set accept, key by key and version by version.
func TestCatalogMatchesApply(t *testing.T) {
	cat := Accepted()
	if len(cat.Configs) != len(knobs) || len(cat.Versions) != len(presets) {
		t.Fatalf("catalog has %d configs and %d versions, core %d and %d", len(cat.Configs), len(cat.Versions), len(knobs), len(presets))
	}
	c, err := New(Options{Brokers: 1})
	if err != nil {
		t.Fatal(err)
	}
	set := func(k, v string) error { _, err := c.conf.with(map[string]string{k: v}); return err }
	for _, s := range cat.Configs {
		good := []string{s.Default}
		bad := []string{"bogus!"}
		switch s.Type {
		case TypeInt:
			good = append(good, strconv.FormatInt(s.Min, 10), strconv.FormatInt(s.Max, 10))
			if s.Min > -1<<63 {
				bad = append(bad, strconv.FormatInt(s.Min-1, 10))
			}
			if s.Max < 1<<63-1 {
				bad = append(bad, strconv.FormatInt(s.Max+1, 10))
			}
		case TypeEnum, TypeBool, TypeList:
			good = append(good, s.Values...)
		case TypeString:
			bad = []string{string(make([]byte, s.MaxLen+1))}
		case TypeDouble:
			good, bad = append(good, "0", "1", "0.25"), append(bad, "-0.1", "1.5", "NaN")
		}
		if s.Type == TypeList {
			good = append(good, s.Values[0]+","+s.Values[len(s.Values)-1])
		}
		for _, v := range good {
			if err := s.Check(v); err != nil {
				t.Errorf("%s=%s: catalog says %v", s.Name, v, err)
			}
			if err := set(s.Name, v); err != nil {
				t.Errorf("%s=%s: set says %v", s.Name, v, err)
			}
		}
		for _, v := range bad {
			if s.Check(v) == nil || set(s.Name, v) == nil {
				t.Errorf("%s=%q accepted", s.Name, v)
			}
		}
		if s.TopicName != "" {
			if got, ok := LookupConfig(s.TopicName); !ok || got.Name != s.Name {
				t.Errorf("topic name %s does not find %s", s.TopicName, s.Name)
			}
		}
	}
	for _, v := range cat.Versions {
		for _, mode := range cat.MetadataModes {
			_, err := New(Options{Brokers: 1, Version: v.Name, Metadata: mode})
			if ok := slices.Contains(v.Metadata, mode); ok != (err == nil) {
				t.Errorf("version %s metadata=%s: catalog says %v, New says %v", v.Name, mode, ok, err)
			}
		}
		for k, val := range v.Defaults {
			if s, ok := LookupConfig(k); !ok || s.Check(val) != nil {
				t.Errorf("version %s: default %s=%s is not a valid config", v.Name, k, val)
			}
		}
		if !slices.Contains(cat.Partitioners, v.Partitioner) {
			t.Errorf("version %s: partitioner %s not in the catalog", v.Name, v.Partitioner)
		}
	}
	if _, err := New(Options{Brokers: 1, Version: "9.9"}); err == nil {
		t.Error("unknown version accepted")
	}
	if _, err := json.Marshal(cat); err != nil {
		t.Fatal(err)
	}
	// A copy: changing it changes nothing.
	cat.Configs[0].Values = append(cat.Configs[0].Values, "x")
	cat.Versions[0].Metadata[0] = "x"
	if again := Accepted(); slices.Contains(again.Configs[0].Values, "x") || again.Versions[0].Metadata[0] == "x" {
		t.Error("the catalog shares memory with core")
	}
}
