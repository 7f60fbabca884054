// Package client is a Go client of the kafkasim server: rooms over HTTP
// (create, inspect, export history, share scenarios) and a websocket
// connection to a room (drive it with scenario commands, watch its event
// stream, take snapshots) speaking the protocol in docs/protocol.md.
// `kafkasim ctl` is built on it; scripts and other programs can be too.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kafkasim/kafkasim/server/protocol"
)

// Client talks to one server by HTTP.
type Client struct {
	Base string // http://host:port
	HTTP *http.Client
}

// New returns a client of the server at base (http://127.0.0.1:8080; a
// bare host:port means http).
func New(base string) (*Client, error) {
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("server %q: want http://HOST:PORT", base)
	}
	return &Client{Base: strings.TrimRight(base, "/"), HTTP: &http.Client{Timeout: 30 * time.Second}}, nil
}

// ReplyError is an error the server replied with.
// For a parse error Message starts with LINE:COL.
type ReplyError struct{ Reply protocol.Error }

func (e *ReplyError) Error() string { return fmt.Sprintf("%s: %s", e.Reply.Code, e.Reply.Message) }

func (c *Client) do(ctx context.Context, method, path, ctype string, body []byte, out any) error {
	return c.doAuth(ctx, method, path, ctype, "", body, out)
}

// doAuth is do with a room's control token (when not empty).
func (c *Client) doAuth(ctx context.Context, method, path, ctype, token string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var e protocol.Error
		if json.Unmarshal(data, &e) == nil && e.Code != "" {
			return &ReplyError{e}
		}
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
	}
	switch o := out.(type) {
	case nil:
		return nil
	case *string:
		*o = string(data)
		return nil
	default:
		return json.Unmarshal(data, out)
	}
}

// Get decodes the JSON at path (an API the client has no method for).
func (c *Client) Get(ctx context.Context, path string, out any) error {
	return c.do(ctx, "GET", path, "", nil, out)
}

// CreateRoom makes a room; the returned info has its control token.
func (c *Client) CreateRoom(ctx context.Context, req protocol.CreateRoom) (protocol.RoomInfo, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return protocol.RoomInfo{}, err
	}
	var info protocol.RoomInfo
	err = c.do(ctx, "POST", "/api/rooms", "application/json", body, &info)
	return info, err
}

// Room says how a room is.
func (c *Client) Room(ctx context.Context, code string) (protocol.RoomInfo, error) {
	var info protocol.RoomInfo
	err := c.do(ctx, "GET", "/api/rooms/"+url.PathEscape(code), "", nil, &info)
	return info, err
}

// History exports a room's history as a .ksim.
func (c *Client) History(ctx context.Context, code string) (string, error) {
	var s string
	err := c.do(ctx, "GET", "/api/rooms/"+url.PathEscape(code)+"/history.ksim", "", nil, &s)
	return s, err
}

// Snapshot returns a room's snapshot message.
func (c *Client) Snapshot(ctx context.Context, code string) (*protocol.Snapshot, error) {
	var s protocol.Snapshot
	err := c.do(ctx, "GET", "/api/rooms/"+url.PathEscape(code)+"/snapshot", "", nil, &s)
	return &s, err
}

// Share stores a scenario on the server and returns its short id.
func (c *Client) Share(ctx context.Context, ksim string) (protocol.Share, error) {
	var sh protocol.Share
	err := c.do(ctx, "POST", "/api/share", "text/plain", []byte(ksim), &sh)
	return sh, err
}

// Shared fetches a shared scenario by id.
func (c *Client) Shared(ctx context.Context, id string) (string, error) {
	var s string
	err := c.do(ctx, "GET", "/api/share/"+url.PathEscape(id), "", nil, &s)
	return s, err
}

// PutLesson makes a lesson file (Markdown, docs/lessons.md, in language
// lang) the room's own lesson; it needs the room's token. A file that does
// not parse is a *ReplyError whose message starts with "line N:".
func (c *Client) PutLesson(ctx context.Context, code, token, markdown, lang string) (protocol.LessonFile, error) {
	var f protocol.LessonFile
	path := "/api/rooms/" + url.PathEscape(code) + "/lesson"
	if lang != "" {
		path += "?lang=" + url.QueryEscape(lang)
	}
	err := c.doAuth(ctx, "PUT", path, "text/markdown", token, []byte(markdown), &f)
	return f, err
}

// wsURL is the room's websocket URL.
func (c *Client) wsURL(code string) string {
	return "ws" + strings.TrimPrefix(c.Base, "http") + "/api/rooms/" + url.PathEscape(code) + "/ws"
}
