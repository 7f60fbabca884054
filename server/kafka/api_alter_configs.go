package kafka

// IncrementalAlterConfigs (key 44), v0-v1, and AlterConfigs (key 33),
// v0-v2.
//
// TOPIC resources change the topic's own configs through the core
// (core.AlterTopicConfigs), so a room's history and a replay hold the
// change: IncrementalAlterConfigs' SET and DELETE (back to the brokers'
// default); AlterConfigs replaces the topic's whole set of overrides, the
// keys it does not name deleted (ConfigurationControlManager
// .legacyAlterConfigResource). APPEND and SUBTRACT are for LIST configs
// only, and the simulation models none: INVALID_CONFIG "Can't APPEND to
// key K because its type is not LIST." (incrementalAlterConfigResource).
// validate_only runs the same checks and changes nothing. As Kafka's
// ConfigAdminManager.preprocess: a resource named twice is INVALID_REQUEST
// for both, so is a config named twice in one resource and a null value
// outside DELETE. BROKER resources: the simulation's broker configs are
// server.properties (`set`) and it models no dynamic broker configs, so a
// broker resource (its own id, or "" for the cluster-wide default) is
// answered as Kafka answers configs it cannot update dynamically
// (DynamicBrokerConfig.validateConfigs, turned into INVALID_REQUEST by
// ConfigAdminManager.validateBrokerConfigChange). Broker loggers are not
// simulated (INVALID_REQUEST, as DescribeConfigs answers).

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kafkasim/kafkasim/core"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func init() {
	register(44, 0, 1, handleIncrementalAlterConfigs)
	register(33, 0, 2, handleAlterConfigs)
}

// Config operations (IncrementalAlterConfigsRequest OpType).
const (
	opSet      = 0
	opDelete   = 1
	opAppend   = 2
	opSubtract = 3
)

// listTopicConfigs are Kafka's LIST-type topic configs (LogConfig's
// ConfigDef): APPEND and SUBTRACT work on them in Kafka, and the
// simulation does not model them.
var listTopicConfigs = []string{"cleanup.policy", "leader.replication.throttled.replicas", "follower.replication.throttled.replicas"}

// configOp is one config change of a resource, whichever API carried it.
type configOp struct {
	name  string
	op    int8
	value *string
}

// alterResult is one resource's answer.
type alterResult struct {
	code int16
	msg  *string
}

func failed(code int16, format string, args ...any) alterResult {
	m := fmt.Sprintf(format, args...)
	return alterResult{code: code, msg: &m}
}

func handleIncrementalAlterConfigs(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.IncrementalAlterConfigsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
		keys := make([]resourceKey, len(req.Resources))
		for i, res := range req.Resources {
			keys[i] = resourceKey{int8(res.ResourceType), res.ResourceName}
		}
		dup := duplicateResources(keys)
		for i, res := range req.Resources {
			ops := make([]configOp, len(res.Configs))
			for j, c := range res.Configs {
				ops[j] = configOp{name: c.Name, op: int8(c.Op), value: c.Value}
			}
			out := alterResource(cx, keys[i], ops, false, req.ValidateOnly, dup[keys[i]])
			rr := kmsg.NewIncrementalAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode, rr.ErrorMessage = res.ResourceType, res.ResourceName, out.code, out.msg
			resp.Resources = append(resp.Resources, rr)
		}
		return resp
	}), nil
}

func handleAlterConfigs(cx *reqCtx, r kmsg.Request) (*plan, error) {
	req := r.(*kmsg.AlterConfigsRequest)
	return local(cx, func() kmsg.Response {
		resp := req.ResponseKind().(*kmsg.AlterConfigsResponse)
		keys := make([]resourceKey, len(req.Resources))
		for i, res := range req.Resources {
			keys[i] = resourceKey{int8(res.ResourceType), res.ResourceName}
		}
		dup := duplicateResources(keys)
		for i, res := range req.Resources {
			ops := make([]configOp, len(res.Configs))
			for j, c := range res.Configs {
				ops[j] = configOp{name: c.Name, op: opSet, value: c.Value}
			}
			out := alterResource(cx, keys[i], ops, true, req.ValidateOnly, dup[keys[i]])
			rr := kmsg.NewAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName, rr.ErrorCode, rr.ErrorMessage = res.ResourceType, res.ResourceName, out.code, out.msg
			resp.Resources = append(resp.Resources, rr)
		}
		return resp
	}), nil
}

// resourceKey names a config resource: its type and name.
type resourceKey struct {
	typ  int8
	name string
}

// duplicateResources marks the resources named more than once.
func duplicateResources(keys []resourceKey) map[resourceKey]bool {
	count := map[resourceKey]int{}
	for _, k := range keys {
		count[k]++
	}
	out := map[resourceKey]bool{}
	for k, n := range count {
		out[k] = n > 1
	}
	return out
}

// alterResource answers one resource: ConfigAdminManager.preprocess's
// checks, then the resource type's handling. replace is AlterConfigs:
// the ops are the resource's whole set of configs.
func alterResource(cx *reqCtx, key resourceKey, ops []configOp, replace, validateOnly, dup bool) alterResult {
	if dup {
		return failed(42, "Each resource must appear at most once.")
	}
	names := map[string]bool{}
	var nulls []string
	for _, o := range ops {
		if names[o.name] {
			return failed(42, "Error due to duplicate config keys")
		}
		names[o.name] = true
		if o.op != opDelete && o.value == nil {
			nulls = append(nulls, o.name)
		}
	}
	if len(nulls) > 0 {
		return failed(42, "Null value not supported for : %s", strings.Join(nulls, ", "))
	}
	switch key.typ {
	case resourceTopic:
		return alterTopic(cx, key.name, ops, replace, validateOnly)
	case resourceBroker:
		return alterBroker(cx, key.name, ops)
	case resourceBrokerLogger:
		if !replace {
			return failed(42, "kafkasim does not simulate broker loggers")
		}
	}
	return failed(42, "Unknown resource type %d", key.typ)
}

// alterTopic turns a topic resource's ops into the core's command and
// applies (or, validate_only, checks) it.
func alterTopic(cx *reqCtx, topic string, ops []configOp, replace, validateOnly bool) alterResult {
	x := core.AlterTopicConfigs{Topic: topic, Set: map[string]string{}}
	for _, o := range ops {
		switch o.op {
		case opSet:
			x.Set[o.name] = *o.value
		case opDelete:
			// Kafka's config names are lower-case dotted words; a
			// DELETE of anything else removes nothing and succeeds.
			if configName(o.name) {
				x.Delete = append(x.Delete, o.name)
			}
		case opAppend, opSubtract:
			verb := map[int8]string{opAppend: "APPEND", opSubtract: "SUBTRACT"}[o.op]
			if slices.Contains(listTopicConfigs, o.name) {
				return failed(40, "kafkasim does not simulate topic config %s", o.name) // INVALID_CONFIG
			}
			return failed(40, "Can't %s to key %s because its type is not LIST.", verb, o.name)
		default:
			return failed(42, "Unknown operations type %d", o.op)
		}
	}
	var err error
	cx.s.backend.Do(context.Background(), func(c *core.Cluster) {
		if t := c.Topic(topic); replace && t != nil {
			for k := range t.Overrides() {
				if _, kept := x.Set[k]; !kept {
					x.Delete = append(x.Delete, k)
				}
			}
			slices.Sort(x.Delete)
		}
		if len(x.Set) == 0 && len(x.Delete) == 0 {
			// Nothing to write: Kafka still checks the topic exists.
			if t := c.Topic(topic); t == nil || t.Deleted() {
				err = fmt.Errorf("UNKNOWN_TOPIC_OR_PARTITION: The topic '%s' does not exist.", topic)
			}
			x.Topic = ""
			return
		}
		if validateOnly {
			err = c.ValidateAlterTopicConfigs(x)
			x.Topic = ""
		}
	})
	if err == nil && x.Topic != "" {
		if len(x.Set) == 0 {
			x.Set = nil
		}
		err = cx.s.backend.Apply(context.Background(), x)
	}
	code, msg := coreError(err)
	return alterResult{code: code, msg: msg}
}

// alterBroker answers a broker resource: its name must be this broker's
// id or "" (ConfigAdminManager.validateResourceNameIsCurrentNodeId), and
// no config can change without a restart here.
func alterBroker(cx *reqCtx, name string, ops []configOp) alterResult {
	if name != "" {
		id, err := strconv.Atoi(name)
		if err != nil {
			return failed(42, "Node id must be an integer, but it is: %s", name)
		}
		if id != cx.broker {
			return failed(42, "Unexpected broker id, expected %d, but received %s", cx.broker, name)
		}
	}
	if len(ops) == 0 {
		return alterResult{}
	}
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = o.name
	}
	return failed(42, "Cannot update these configs dynamically: Set(%s) (kafkasim models no dynamic broker configs: `set` is server.properties)", strings.Join(names, ", "))
}

// configName reports whether s could be a Kafka config name: lower-case
// letters, digits, '.', '_' and '-'.
func configName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return s != ""
}
