package scene

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The page and the canvas iframe talk by window.postMessage. Every
// message is one JSON object with a "type"; canvas.html relays them to and
// from the canvas wasm as JSON text. The page's own scenes do not travel
// this way (the engine is in the canvas's binary and the canvas reads its
// scene in-process); a "scene" message is how the development harness
// shows sample scenes, and once one arrives the canvas draws posted scenes.
//
// Engine (parent page) -> canvas:
//
//	{"type":"scene","scene":{...Scene...}}   the new picture
//	{"type":"tick","now":1234,"rate":0.01}   time moved, nothing else changed
//	{"type":"where","id":7,"ref":{...Ref...}} where is this element? (answered by "where")
//	{"type":"stats"}                          frame statistics (answered by "stats")
//
// Canvas -> engine:
//
//	{"type":"ready"}                          the canvas wasm runs and listens
//	{"type":"frame","n":1,"ms":812}           the first frame with a cluster can be seen (ms since navigation start; after the page's rendering update that shows it)
//	{"type":"click","kind":"broker","broker":2,"x":..,"y":..}   a click on an element
//	{"type":"hover","kind":"record",...}      the element under the pointer changed ("kind":"" = none)
//	{"type":"where","id":7,"found":true,"x":..,"y":..,"w":..,"h":..}
//	{"type":"stats","frames":..,"fps":..,"tps":..,"decodeMs":..}
//	{"type":"error","error":"..."}            a message the canvas refused, and why
//
// Coordinates are CSS pixels in the iframe's viewport; x,y of "where" are
// the element's centre, w,h its size. The canvas never acts on a click
// itself: the engine decides what a click means (select, open a menu).

// Message types.
const (
	MsgScene = "scene"
	MsgTick  = "tick"
	MsgWhere = "where"
	MsgStats = "stats"
	MsgReady = "ready"
	MsgFrame = "frame"
	MsgClick = "click"
	MsgHover = "hover"
	MsgError = "error"
)

// Inbound is any message the engine posts to the canvas; which fields are
// set depends on Type.
type Inbound struct {
	Type  string          `json:"type"`
	Scene json.RawMessage `json:"scene,omitempty"`
	Now   int64           `json:"now,omitempty"`
	Rate  float64         `json:"rate,omitempty"`
	ID    int64           `json:"id,omitempty"`
	Ref   *Ref            `json:"ref,omitempty"`
}

// Click is what the canvas posts for a click (Type "click") or a change of
// the element under the pointer (Type "hover"). The embedded Ref names the
// element (Kind "" on hover: nothing). View says which view was clicked.
type Click struct {
	Type string `json:"type"`
	Ref
	X      float64 `json:"x"`
	Y      float64 `json:"y"`
	Button int     `json:"button,omitempty"` // 0 left, 1 middle, 2 right
	View   View    `json:"view,omitempty"`
	// At is the virtual time under the pointer in the space-time view
	// (a click on a lane or an arrow), so the engine can seek there.
	At int64 `json:"at,omitempty"`
}

// Where answers a where-query: the element's centre and size.
type Where struct {
	Type  string  `json:"type"`
	ID    int64   `json:"id"`
	Found bool    `json:"found"`
	X     float64 `json:"x,omitempty"`
	Y     float64 `json:"y,omitempty"`
	W     float64 `json:"w,omitempty"`
	H     float64 `json:"h,omitempty"`
}

// Stats answers a stats query and is what make bench reads.
type Stats struct {
	Type     string  `json:"type"`
	Frames   int64   `json:"frames"`   // frames drawn so far
	FPS      float64 `json:"fps"`      // ebiten.ActualFPS
	TPS      float64 `json:"tps"`      // ebiten.ActualTPS
	Scenes   int64   `json:"scenes"`   // scenes taken (posted, or read from the engine)
	DecodeMs float64 `json:"decodeMs"` // mean wall ms to decode a posted scene or build the engine's
	Drawn    int     `json:"drawn"`    // message sprites drawn in the last frame
	Quads    int     `json:"quads"`    // textured quads the last frame drew (one DrawTriangles32)
	Pixels   float64 `json:"pixels"`   // their area in pixels: what the GPU (SwiftShader: the CPU) fills, overlaps counted
}

// Frame says the first frame was drawn.
type Frame struct {
	Type string  `json:"type"`
	N    int64   `json:"n"`
	Ms   float64 `json:"ms"`
}

// Error reports an inbound message the canvas refused.
type Error struct {
	Type  string `json:"type"`
	Error string `json:"error"`
}

// DecodeInbound parses one inbound message, refusing one above MaxBytes or
// of an unknown type with an error that says so.
func DecodeInbound(data []byte) (*Inbound, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("scene: message of %d bytes exceeds the %d byte limit", len(data), MaxBytes)
	}
	var in Inbound
	if err := json.Unmarshal(data, &in); err != nil {
		return nil, fmt.Errorf("scene: bad message: %v", err)
	}
	switch in.Type {
	case MsgScene:
		if len(in.Scene) == 0 {
			return nil, fmt.Errorf("scene: scene message without a scene")
		}
	case MsgTick, MsgStats:
	case MsgWhere:
		if in.Ref == nil {
			return nil, fmt.Errorf("scene: where message without a ref")
		}
	case "":
		return nil, fmt.Errorf("scene: message without a type")
	default:
		return nil, fmt.Errorf("scene: unknown message type %q", in.Type)
	}
	return &in, nil
}

// Decode parses and validates one scene (the JSON of a Scene, not the
// envelope). A scene that breaks a limit or an invariant is refused whole.
func Decode(data []byte) (*Scene, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("scene: %d bytes exceeds the %d byte limit", len(data), MaxBytes)
	}
	var s Scene
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("scene: bad JSON: %v", err)
	}
	for i := range s.Brokers {
		if s.Brokers[i].State == "up" { // core.BrokerView's word for alive
			s.Brokers[i].State = StateAlive
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Encode returns the JSON of s wrapped in a scene envelope, ready to post.
func Encode(s *Scene) ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return json.Marshal(Inbound{Type: MsgScene, Scene: b})
}
