// Package protocol is the kafkasim websocket protocol: the JSON messages a
// client and the server exchange over one connection to a room. It is pure
// data (no I/O), so the server, the Go client and the browser's live mode
// (compiled to WebAssembly) share one definition. docs/protocol.md is its
// description for people; a change there and here go together.
//
// Every message is one JSON object in one websocket text frame, with a
// "type". Client messages may carry an "id" (a number chosen by the
// client); the server's reply to that message carries the same id.
package protocol

import (
	"encoding/json"

	"github.com/kafkasim/kafkasim/core"
)

// Version is the protocol version this package speaks. The server states
// it in Welcome; a client message with a "v" other than Version gets an
// error reply (code "version").
const Version = 1

// Client message types.
const (
	TAuth     = "auth"     // Token: become a driver
	TCmd      = "cmd"      // Text: scenario lines, run in order
	TSnapshot = "snapshot" // ask for a fresh snapshot (also a server message)
	THistory  = "history"  // ask for the room's history as .ksim (also a server message)
	TReset    = "reset"    // driver: back to the start of the loaded scenario
	TLoad     = "load"     // driver: Ksim replaces the room's scenario
	TSpeed    = "speed"    // driver: Speed (virtual ms per wall ms; 0 pauses)
	TAdvance  = "advance"  // driver: Ms of virtual time at once
	TLesson   = "lesson"   // driver: the lesson step every page follows (also a server message)
	TPredict  = "predict"  // driver: open a prediction (Question, Choices)
	TAnswer   = "answer"   // anyone: Prediction, Choice
	TReveal   = "reveal"   // driver: close the open prediction and show its answers (also a server message)
)

// Server message types (besides the shared ones above).
const (
	TWelcome    = "welcome"    // first message on every connection
	TEvents     = "events"     // a batch of core events
	TClock      = "clock"      // the room's speed changed
	TResult     = "result"     // the reply to a client message that worked
	TError      = "error"      // the reply to one that did not (or a server notice)
	TPrediction = "prediction" // a prediction opened
	TTally      = "tally"      // drivers only: the answers so far
	TPresence   = "presence"   // how many are in the room
)

// Error codes (Error.Code).
const (
	ErrBadJSON     = "bad_json"     // not one JSON object
	ErrUnknownType = "unknown_type" // no such message type
	ErrBadMessage  = "bad_message"  // a field is missing, of the wrong type or out of range
	ErrTooLarge    = "too_large"    // the frame is over Limits.MaxMessageBytes
	ErrRateLimited = "rate_limited" // over Limits.CommandsPerSecond
	ErrForbidden   = "forbidden"    // needs the control token
	ErrParse       = "parse"        // a scenario line does not parse (Line, Col set)
	ErrCommand     = "command"      // a command failed in the core
	ErrBusy        = "busy"         // the room's queue of scripts is full
	ErrVersion     = "version"      // "v" is not Version
	ErrLimit       = "limit"        // a room limit (history, clients) is reached
	ErrClosed      = "closed"       // the room is gone
)

// In is any client message: Type says which fields matter.
type In struct {
	Type       string   `json:"type"`
	ID         int64    `json:"id,omitempty"`
	V          int      `json:"v,omitempty"`
	Token      string   `json:"token,omitempty"`
	Text       string   `json:"text,omitempty"`       // cmd
	Ksim       string   `json:"ksim,omitempty"`       // load
	Instant    bool     `json:"instant,omitempty"`    // load: run the scenario's steps at once, to its end
	Name       string   `json:"name,omitempty"`       // load: what it is called (a file name, a lesson)
	Speed      *float64 `json:"speed,omitempty"`      // speed
	Ms         int64    `json:"ms,omitempty"`         // advance
	Lesson     *Lesson  `json:"lesson,omitempty"`     // lesson
	Question   string   `json:"question,omitempty"`   // predict
	Choices    []string `json:"choices,omitempty"`    // predict
	Correct    *int     `json:"correct,omitempty"`    // predict: the right choice, revealed with the answers
	Prediction int64    `json:"prediction,omitempty"` // answer
	Choice     *int     `json:"choice,omitempty"`     // answer
}

// Limits are the room's limits, as the server announces them in Welcome.
type Limits struct {
	MaxMessageBytes   int     `json:"maxMessageBytes"`
	CommandsPerSecond float64 `json:"commandsPerSecond"`
	CommandBurst      int     `json:"commandBurst"`
	MaxClients        int     `json:"maxClients"`
	MaxHistory        int     `json:"maxHistory"` // commands the room's history keeps
	MaxChoices        int     `json:"maxChoices"`
}

// Welcome is the first message of every connection.
type Welcome struct {
	Type     string      `json:"type"` // "welcome"
	Protocol int         `json:"protocol"`
	Room     string      `json:"room"`
	Client   int64       `json:"client"` // this connection's number in the room
	Role     string      `json:"role"`   // "watcher" or "driver"
	Speed    float64     `json:"speed"`
	Scenario string      `json:"scenario,omitempty"` // name of the loaded scenario
	Limits   Limits      `json:"limits"`
	Lesson   *Lesson     `json:"lesson,omitempty"`     // the lesson step pages show now
	Open     *Prediction `json:"prediction,omitempty"` // the open prediction, if any
}

// Snapshot is the room's whole visible state. Events with Seq > Seq of
// the same Gen follow it. Reason: join, request, resync (the client fell
// behind and missed events), reset, load.
type Snapshot struct {
	Type     string         `json:"type"` // "snapshot"
	ID       int64          `json:"id,omitempty"`
	Reason   string         `json:"reason"`
	Gen      int            `json:"gen"` // bumped by every reset and load
	Seq      uint64         `json:"seq"` // last event included
	T        int64          `json:"t"`   // server wall clock, Unix ms
	Speed    float64        `json:"speed"`
	Scenario string         `json:"scenario,omitempty"`
	Snapshot *core.Snapshot `json:"snapshot"`
}

// Events is a batch of events in order. Now is the virtual time after
// them; T the server's wall clock when the batch was sent (Unix ms).
type Events struct {
	Type   string       `json:"type"` // "events"
	Gen    int          `json:"gen"`
	Now    int64        `json:"now"`
	T      int64        `json:"t"`
	Events []core.Event `json:"events"`
	// Applied are the commands that joined the room's history since the
	// last batch, in order (what a page in live mode replays).
	Applied []Applied `json:"applied,omitempty"`
}

// Clock says how fast the room's virtual time runs: Speed virtual ms per
// wall ms (0: paused), from virtual Now at wall T.
type Clock struct {
	Type  string  `json:"type"` // "clock"
	Gen   int     `json:"gen"`
	Now   int64   `json:"now"`
	T     int64   `json:"t"`
	Speed float64 `json:"speed"`
}

// LineResult is what one step of a cmd did. Error is set when the command
// failed in the core; Failed when an expect did not hold; Output is
// print's text.
type LineResult struct {
	Line   int    `json:"line"`
	At     int64  `json:"at"`
	Error  string `json:"error,omitempty"`
	Failed string `json:"failed,omitempty"`
	Output string `json:"output,omitempty"`
}

// Result is the reply to a client message that was carried out. For cmd,
// Lines says what each step did (ok is false if any failed) and it comes
// when the last step has run: a script with waits replies when its last
// wait is over.
type Result struct {
	Type  string       `json:"type"` // "result"
	ID    int64        `json:"id,omitempty"`
	Of    string       `json:"of"` // the message type replied to
	OK    bool         `json:"ok"`
	Role  string       `json:"role,omitempty"` // auth
	At    int64        `json:"at"`             // virtual time when done
	Lines []LineResult `json:"lines,omitempty"`
}

// Error is the reply to a client message that was refused, or a notice
// (ID 0). Line and Col locate a parse error in the cmd's text (1-based).
type Error struct {
	Type    string `json:"type"` // "error"
	ID      int64  `json:"id,omitempty"`
	Of      string `json:"of,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
}

// History is the room's history as a scenario: the cluster line, every
// command with a wait before it for the virtual time that passed, and a
// final wait up to At. Replaying it gives the room's state at At, which
// Snapshot (taken at the same moment) shows.
type History struct {
	Type string `json:"type"` // "history"
	ID   int64  `json:"id,omitempty"`
	Gen  int    `json:"gen"`
	At   int64  `json:"at"`
	Seq  uint64 `json:"seq"`
	N    int    `json:"n"` // commands in it: Applied with N up to this are in Ksim
	Ksim string `json:"ksim"`
	// Stopped, when set, says why the history stopped replaying the room
	// at StoppedAt (a command it could not keep: see Applied.Why); a copy
	// cannot follow this generation.
	Stopped   string         `json:"stopped,omitempty"`
	StoppedAt int64          `json:"stoppedAt,omitempty"`
	Snapshot  *core.Snapshot `json:"snapshot"`
}

// Applied says that a command joined the room's history: the Nth of
// the batch's generation, applied at virtual time At. A page in live mode keeps
// its own copy of the cluster in step with the room by replaying them
// (the core is deterministic: the same commands at the same virtual
// times give the same events). An outside Kafka client's connection or
// request comes as an `outside` line (docs/scenario.md): the same typed
// request, applied at the same time. Replayable is false for a command a
// replay cannot redo exactly (Why says which and why: it has no scenario
// form, it came in the middle of a script's blocking operation, the
// history was full): from then on a copy cannot follow, and no more
// Applied come in this generation.
type Applied struct {
	N          int    `json:"n"`
	At         int64  `json:"at"`
	Line       string `json:"line"`
	Replayable bool   `json:"replayable"`
	Why        string `json:"why,omitempty"`
}

// Lesson is the lesson step every page in the room shows. Kind is the
// step's kind as the lessons package names it (read, run, predict, check,
// ...); Text its Markdown, for pages that do not have the lesson.
type Lesson struct {
	Type   string `json:"type,omitempty"` // "lesson" when sent alone
	Lesson string `json:"lesson"`         // the lesson's id
	Step   int    `json:"step"`           // 0-based
	Steps  int    `json:"steps,omitempty"`
	Title  string `json:"title,omitempty"`
	Kind   string `json:"kind,omitempty"`
	Text   string `json:"text,omitempty"`
	// File is the version of the room's own lesson file this step is of
	// (GET /api/rooms/CODE/lesson?file=N: the parsed lesson, which pages
	// show as they show a bundled one); 0 for a bundled lesson.
	File int64 `json:"file,omitempty"`
}

// LessonFile answers a teacher's PUT /api/rooms/CODE/lesson: the file's
// version in the room, the lesson's id, title and step count, and the
// parsed lesson (package lessons' Lesson as JSON).
type LessonFile struct {
	File   int64           `json:"file"`
	ID     string          `json:"id"`
	Title  string          `json:"title"`
	Steps  int             `json:"steps"`
	Lesson json.RawMessage `json:"lesson"`
}

// Prediction is an open question: students answer with a choice's index.
type Prediction struct {
	Type     string   `json:"type,omitempty"` // "prediction" when sent alone
	ID       int64    `json:"prediction"`
	Question string   `json:"question"`
	Choices  []string `json:"choices"`
}

// Tally is the answers to a prediction so far: Counts[i] chose Choices[i].
// Drivers see it after every answer; everyone sees it with Reveal.
type Tally struct {
	Type     string `json:"type"` // "tally" or "reveal"
	ID       int64  `json:"prediction"`
	Counts   []int  `json:"counts"`
	Answered int    `json:"answered"`
	Watchers int    `json:"watchers"`          // connections in the room that could answer
	Correct  *int   `json:"correct,omitempty"` // reveal, if the driver said
}

// Presence is how many connections the room has, sent when it changes
// (at most once a second).
type Presence struct {
	Type     string `json:"type"` // "presence"
	Clients  int    `json:"clients"`
	Drivers  int    `json:"drivers"`
	Watchers int    `json:"watchers"`
}

// RoomInfo is what creating a room returns (Token only to its creator)
// and what GET /api/rooms/{code} says about it.
type RoomInfo struct {
	Code     string  `json:"code"`
	Token    string  `json:"token,omitempty"`
	Scenario string  `json:"scenario"`
	Join     string  `json:"join"` // the page's URL for students
	QR       string  `json:"qr"`   // an SVG QR code of Join
	WS       string  `json:"ws"`   // the websocket's URL
	Protocol int     `json:"protocol"`
	Clients  int     `json:"clients"`
	Drivers  int     `json:"drivers"`
	Now      int64   `json:"now"`
	Gen      int     `json:"gen"`
	Speed    float64 `json:"speed"`
	Lagging  int     `json:"lagging"` // clients dropped from the event stream now, waiting for a resync
	Resyncs  int64   `json:"resyncs"` // clients resynced by snapshot so far
	Frames   int64   `json:"frames"`  // frames streamed so far
}

// CreateRoom is the JSON body of POST /api/rooms (a body that is not JSON
// is taken as the scenario itself).
type CreateRoom struct {
	Name     string   `json:"name,omitempty"`
	Scenario string   `json:"scenario,omitempty"`
	Speed    *float64 `json:"speed,omitempty"`
	Paused   bool     `json:"paused,omitempty"`
}

// Share is the reply to POST /api/share.
type Share struct {
	ID  string `json:"id"`
	URL string `json:"url"` // GET it for the scenario
	App string `json:"app"` // the page that opens it
}

// Peek returns a message's type and id without decoding the rest.
func Peek(data []byte) (typ string, id int64, err error) {
	var h struct {
		Type string `json:"type"`
		ID   int64  `json:"id"`
	}
	err = json.Unmarshal(data, &h)
	return h.Type, h.ID, err
}
