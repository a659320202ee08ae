package flipsight

// Stream event types (Event.Type).
const (
	EventHello = "hello"
	EventMatch = "match"
	EventPing  = "ping"
)

// Event is one line of the NDJSON bot stream: hello {bot_id}, match {match}
// (the whole object for bot-vs-bot matches; only id, kind and room_id for
// human ones) or ping (every 10 s). Every event carries server_now_ms.
// Unknown types are passed through; a client ignores them.
type Event struct {
	Type        string `json:"type"`
	BotID       int64  `json:"bot_id,omitempty"`
	Match       *Match `json:"match,omitempty"`
	ServerNowMS int64  `json:"server_now_ms"`
}
