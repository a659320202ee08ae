package bot

// maxRecentIDs is how many ended or refused matches the bot remembers.
const maxRecentIDs = 4096

// recent is a set that remembers at most its capacity: when full, adding a
// key forgets the oldest one. The bot runs for months; the matches it saw
// end or refused must not make its memory grow with every match it ever
// played. A stale view of a match arrives late by seconds, not by thousands
// of matches, so forgetting the oldest is safe.
type recent[K comparable] struct {
	set  map[K]struct{}
	ring []K // the keys in the order they were added; when full, ring[next] is the oldest
	next int
	size int // the most keys remembered
}

func newRecent[K comparable](capacity int) *recent[K] {
	return &recent[K]{set: map[K]struct{}{}, size: max(1, capacity)}
}

// has reports whether k is remembered.
func (r *recent[K]) has(k K) bool {
	_, ok := r.set[k]
	return ok
}

// add remembers k, forgetting the oldest key when the set is full.
func (r *recent[K]) add(k K) {
	if r.has(k) {
		return
	}
	if len(r.ring) < r.size {
		r.ring = append(r.ring, k)
	} else {
		delete(r.set, r.ring[r.next])
		r.ring[r.next] = k
		r.next = (r.next + 1) % r.size
	}
	r.set[k] = struct{}{}
}

// len returns how many keys are remembered.
func (r *recent[K]) len() int { return len(r.set) }

// endKey names what ended: a bot match by its id, a human match by its id
// and round (a room plays several rounds under one id, −room_id).
type endKey struct {
	id    int64
	round string
}
