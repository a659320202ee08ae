package bot

// maxRecentIDs is how many ended or refused match IDs the bot remembers.
const maxRecentIDs = 4096

// recentIDs is a set of match IDs that remembers at most its capacity: when
// full, adding an ID forgets the oldest one. The bot runs for months; the
// matches it saw end or refused must not make its memory grow with every
// match it ever played. A stale view of a match arrives late by seconds, not
// by thousands of matches, so forgetting the oldest is safe.
type recentIDs struct {
	set  map[int64]struct{}
	ring []int64 // the IDs in the order they were added; when full, ring[next] is the oldest
	next int
	size int // the most IDs remembered
}

func newRecentIDs(capacity int) *recentIDs {
	return &recentIDs{set: map[int64]struct{}{}, size: max(1, capacity)}
}

// has reports whether id is remembered.
func (r *recentIDs) has(id int64) bool {
	_, ok := r.set[id]
	return ok
}

// add remembers id, forgetting the oldest ID when the set is full.
func (r *recentIDs) add(id int64) {
	if r.has(id) {
		return
	}
	if len(r.ring) < r.size {
		r.ring = append(r.ring, id)
	} else {
		delete(r.set, r.ring[r.next])
		r.ring[r.next] = id
		r.next = (r.next + 1) % r.size
	}
	r.set[id] = struct{}{}
}

// len returns how many IDs are remembered.
func (r *recentIDs) len() int { return len(r.set) }
