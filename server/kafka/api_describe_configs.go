package kafka

// DescribeConfigs (key 32), v0-v4.
//
// Topic and broker configs as the simulated brokers hold them, from the
// core's one table of config keys (core.Cluster.TopicConfigs and
// BrokerConfigs): the value in effect, its source (DYNAMIC_TOPIC_CONFIG
// for a topic's own override, STATIC_BROKER_CONFIG for what the
// scenario's `set` changed, which stands for server.properties, else
// DEFAULT_CONFIG with the preset's default), read-only for broker-wide
// keys Kafka cannot change without a restart, synonyms when asked (v1+,
// the topic override, the broker value, the default), the config type
// (v3+). As in Kafka's ConfigHelper: a named config the broker does not
// know is left out; a topic that does not exist is
// UNKNOWN_TOPIC_OR_PARTITION; a broker resource names the asked broker
// (another id or a non-number is INVALID_REQUEST), or "" for the
// cluster-wide dynamic defaults, of which the simulation has none;
// broker loggers are not simulated (INVALID_REQUEST). Only the keys the
// simulation models are listed, not all of Kafka's.

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() { register(32, 0, 4, handleDescribeConfigs) }

// Resource types (ConfigResource.Type).
const (
	resourceTopic        = 2
	resourceBroker       = 4
	resourceBrokerLogger = 8
)

// configSources are DescribeConfigsResponse.ConfigSource ids.
var configSources = map[string]int8{
	core.SourceDynamicTopic: 1,
	core.SourceStaticBroker: 4,
	core.SourceDefault:      5,
}

// configTypes are DescribeConfigsResponse.ConfigType ids (v3+).
var configTypes = map[string]int8{
	core.ConfigTypeBoolean: 1,
	core.ConfigTypeString:  2,
	core.ConfigTypeInt:     3,
	core.ConfigTypeLong:    5,
	core.ConfigTypeList:    7,
}

func handleDescribeConfigs(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.DescribeConfigsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.DescribeConfigsResponse)
		cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
			for _, res := range req.Resources {
				resp.Resources = append(resp.Resources, describeResource(c, cx.broker, req, res))
			}
		})
		return resp
	}), nil
}

func describeResource(c *core.Cluster, broker int, req *kmsg.DescribeConfigsRequest, res kmsg.DescribeConfigsRequestResource) kmsg.DescribeConfigsResponseResource {
	out := kmsg.NewDescribeConfigsResponseResource()
	out.ResourceType, out.ResourceName = res.ResourceType, res.ResourceName
	fail := func(code int16, format string, args ...any) kmsg.DescribeConfigsResponseResource {
		msg := fmt.Sprintf(format, args...)
		out.ErrorCode, out.ErrorMessage = code, &msg
		return out
	}
	var entries []core.ConfigEntry
	switch res.ResourceType {
	case resourceTopic:
		if err := checkTopicName(res.ResourceName); err != nil {
			return fail(17, "%v", err) // INVALID_TOPIC_EXCEPTION
		}
		es, err := c.TopicConfigs(res.ResourceName)
		if err != nil {
			return fail(3, "Topic '%s' does not exist.", res.ResourceName) // UNKNOWN_TOPIC_OR_PARTITION
		}
		entries = es
	case resourceBroker:
		if res.ResourceName == "" {
			return out // no cluster-wide dynamic defaults in the simulation
		}
		id, err := strconv.Atoi(res.ResourceName)
		if err != nil {
			return fail(42, "Broker id must be an integer, but it is: %s", res.ResourceName)
		}
		if id != broker {
			return fail(42, "Unexpected broker id, expected %d or empty string, but received %s", broker, res.ResourceName)
		}
		es, err := c.BrokerConfigs(id)
		if err != nil {
			return fail(42, "%v", err)
		}
		entries = es
	case resourceBrokerLogger:
		return fail(42, "kafkasim does not simulate broker loggers")
	default:
		return fail(42, "Unsupported resource type %d", res.ResourceType)
	}
	for _, e := range entries {
		if res.ConfigNames != nil && !slices.Contains(res.ConfigNames, e.Name) {
			continue
		}
		out.Configs = append(out.Configs, configEntry(req, e))
	}
	return out
}

// configEntry is one entry in the request's version: v0 says IsDefault,
// v1+ the source and (if asked) synonyms, v3+ the type.
func configEntry(req *kmsg.DescribeConfigsRequest, e core.ConfigEntry) kmsg.DescribeConfigsResponseResourceConfig {
	rc := kmsg.NewDescribeConfigsResponseResourceConfig()
	v := e.Value
	rc.Name, rc.Value, rc.ReadOnly = e.Name, &v, e.ReadOnly
	rc.IsDefault = e.Source == core.SourceDefault
	rc.Source = kmsg.ConfigSource(configSources[e.Source])
	rc.ConfigType = kmsg.ConfigType(configTypes[e.Type])
	if req.IncludeSynonyms {
		for _, s := range e.Synonyms {
			sv := s.Value
			rc.ConfigSynonyms = append(rc.ConfigSynonyms, kmsg.DescribeConfigsResponseResourceConfigConfigSynonym{
				Name: s.Name, Value: &sv, Source: kmsg.ConfigSource(configSources[s.Source])})
		}
	}
	return rc
}

// checkTopicName is Kafka's Topic.validate: 1 to 249 characters of
// ASCII letters, digits, '.', '_' and '-', and not "." or "..".
func checkTopicName(name string) error {
	if name == "" || name == "." || name == ".." || len(name) > 249 {
		return fmt.Errorf("Topic name %q is illegal", name)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("Topic name %q is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'", name)
		}
	}
	return nil
}
