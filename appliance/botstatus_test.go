package appliance

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flipbot.dev/flipbot/appliance/state"
	"flipbot.dev/flipbot/bot"
	"flipbot.dev/flipbot/bot/record"
	"flipbot.dev/flipbot/gpio"
)

// fill sets every field reachable from v to a distinct non-zero value:
// numbers count up, strings name their count, slices get two elements,
// times are whole seconds in UTC (so that they survive JSON).
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(1_800_000_000+int64(*n), 0).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), n)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), n)
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Map:
		m := reflect.MakeMapWithSize(v.Type(), 2)
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, n)
			fill(e, n)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// zeroFields lists the leaf fields of v that are zero, by path.
func zeroFields(v reflect.Value, path string) []string {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			if v.Interface().(time.Time).IsZero() {
				return []string{path}
			}
			return nil
		}
		var out []string
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				out = append(out, zeroFields(v.Field(i), path+"."+f.Name)...)
			}
		}
		return out
	case reflect.Map:
		if v.Len() == 0 {
			return []string{path}
		}
		var out []string
		for it := v.MapRange(); it.Next(); {
			out = append(out, zeroFields(it.Value(), fmt.Sprintf("%s[%v]", path, it.Key()))...)
		}
		return out
	case reflect.Slice, reflect.Array:
		if v.Len() == 0 {
			return []string{path}
		}
		var out []string
		for i := range v.Len() {
			out = append(out, zeroFields(v.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	if v.IsZero() {
		return []string{path}
	}
	return nil
}

// TestEveryBotFieldReachesAPIStatus is the guard of the copy from the
// bot's types into the status's: every field of the bot's status, at
// every depth, is filled, goes through the runner's copy into the hub, out
// as /api/status JSON and back, and must come out equal, in the field of
// the same name below the top level. A field added to bot.Status (or to
// the match, leg, search, move counts, result or bot types) that the
// appliance has no field for, drops, hides from the JSON or fails to copy
// makes this test fail.
func TestEveryBotFieldReachesAPIStatus(t *testing.T) {
	var rep bot.Status
	n := 0
	fill(reflect.ValueOf(&rep).Elem(), &n)
	require.Empty(t, zeroFields(reflect.ValueOf(rep), "bot.Status"), "the filler reaches every field")

	// Each top-level field of bot.Status and where the appliance shows
	// it; a new field must be added to reportOf and here.
	shown := map[string]func(t *testing.T, st state.Status){
		"State":       func(t *testing.T, st state.Status) { assert.Equal(t, rep.State, st.BotState) },
		"Bot":         func(t *testing.T, st state.Status) { assert.Empty(t, sameFields(rep.Bot, st.Bot, "Bot")) },
		"Matches":     func(t *testing.T, st state.Status) { assert.Empty(t, sameFields(rep.Matches, st.Matches, "Matches")) },
		"Results":     func(t *testing.T, st state.Status) { assert.Empty(t, sameFields(rep.Results, st.Results, "Results")) },
		"LastError":   func(t *testing.T, st state.Status) { assert.Equal(t, rep.LastError, st.Detail) },
		"NetworkDown": func(t *testing.T, st state.Status) { assert.True(t, st.NetworkDown) },
		"Updated":     func(t *testing.T, st state.Status) { assert.Equal(t, rep.Updated, st.BotUpdated) },
		"EngineFailing": func(t *testing.T, st state.Status) {
			assert.Equal(t, rep.EngineFailing, st.EngineFailing)
		},
	}
	for i := range reflect.TypeFor[bot.Status]().NumField() {
		name := reflect.TypeFor[bot.Status]().Field(i).Name
		if _, ok := shown[name]; !ok {
			t.Errorf("bot.Status.%s is not shown by the appliance: copy it in reportOf and check it here", name)
		}
	}

	hub := state.NewHub(nil)
	hub.Update(func(st *state.Status) {
		st.Token = state.TokenStored
		st.Storage.OK = true
		st.Phase = state.PhaseRunning
	})
	hub.Update(func(st *state.Status) { st.Report = reportOf(st.Report, rep) })
	b, err := hub.Snapshot().JSON()
	require.NoError(t, err)
	var got state.Status
	require.NoError(t, json.Unmarshal(b, &got))
	for name, check := range shown {
		t.Run(name, func(t *testing.T) { check(t, got) })
	}
	assert.Equal(t, state.KindNoNetwork, got.Kind, "the bot's network_down decides the state, not its error text")

	online := rep
	online.State = bot.StateOnline
	hub.Update(func(st *state.Status) { st.Report = reportOf(st.Report, online) })
	st := hub.Snapshot()
	assert.True(t, st.Online)
	assert.False(t, st.NetworkDown, "never network-down while online")
	assert.Equal(t, state.KindInGame, st.Kind)
	assert.Empty(t, st.Detail)
}

// sameFields lists, by path, the leaf fields of the bot's value b that the
// status's value s lacks or holds differently; struct fields are matched
// by name, at every depth.
func sameFields(b, s any, path string) []string {
	return sameValues(reflect.ValueOf(b), reflect.ValueOf(s), path)
}

func sameValues(b, s reflect.Value, path string) []string {
	switch {
	case b.Type() == reflect.TypeFor[time.Time]():
		if s.Type() != b.Type() || !b.Interface().(time.Time).Equal(s.Interface().(time.Time)) {
			return []string{path}
		}
		return nil
	case b.Kind() == reflect.Struct:
		if s.Kind() != reflect.Struct {
			return []string{path + " (not a struct)"}
		}
		var out []string
		for i := range b.NumField() {
			f := b.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			sf := s.FieldByName(f.Name)
			if !sf.IsValid() {
				out = append(out, path+"."+f.Name+" (no such field)")
				continue
			}
			out = append(out, sameValues(b.Field(i), sf, path+"."+f.Name)...)
		}
		return out
	case b.Kind() == reflect.Slice || b.Kind() == reflect.Array:
		if s.Kind() != b.Kind() || s.Len() != b.Len() {
			return []string{path}
		}
		var out []string
		for i := range b.Len() {
			out = append(out, sameValues(b.Index(i), s.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case b.Kind() == reflect.Map:
		if s.Kind() != reflect.Map || s.Len() != b.Len() || s.Type().Key() != b.Type().Key() {
			return []string{path}
		}
		var out []string
		for it := b.MapRange(); it.Next(); {
			p := fmt.Sprintf("%s[%v]", path, it.Key())
			if sv := s.MapIndex(it.Key()); sv.IsValid() {
				out = append(out, sameValues(it.Value(), sv, p)...)
			} else {
				out = append(out, p)
			}
		}
		return out
	}
	if s.Kind() != b.Kind() || !b.Equal(s) {
		return []string{path}
	}
	return nil
}

// TestSameFieldsFindsADroppedField: the guard above sees a field the copy
// drops and a value it changes.
func TestSameFieldsFindsADroppedField(t *testing.T) {
	var rep bot.Status
	n := 0
	fill(reflect.ValueOf(&rep).Elem(), &n)
	got := matchesOf(rep.Matches)
	require.Empty(t, sameFields(rep.Matches, got, "Matches"))
	got[1].Legs[0].LastSearch.Cause = ""
	got[0].Moves.Fallbacks = nil
	assert.Equal(t, []string{"Matches[0].Moves.Fallbacks", "Matches[1].Legs[0].LastSearch.Cause"},
		sameFields(rep.Matches, got, "Matches"))
	type short struct{ ID int64 }
	assert.Contains(t, sameFields(rep.Bot, short{ID: rep.Bot.ID}, "Bot"), "Bot.Name (no such field)")
}

// TestEveryIndicatorFieldIsFilled: the indicators' status is a real
// conversion (one match, from our side), so each field of gpio.Status,
// gpio.Game and gpio.Leg must be set by ToGPIOStatus for some state; a
// field added there and forgotten here fails.
func TestEveryIndicatorFieldIsFilled(t *testing.T) {
	var rep bot.Status
	n := 0
	fill(reflect.ValueOf(&rep).Elem(), &n)
	for i := range rep.Matches {
		for j := range rep.Matches[i].Legs {
			l := &rep.Matches[i].Legs[j]
			l.Status, l.MyColor, l.Turn, l.MyTurn = "active", 1, 1, true
			if j == 1 {
				l.Status = "finished"
			}
			l.ClocksAt = time.Time{}
		}
	}
	st := state.Status{Device: state.Device{Addresses: []string{"192.168.1.23"}, PageURLs: []string{"http://192.168.1.23:8080/"}},
		PairingCode: "4F7K-29QX", Report: state.Report{Detail: "why"}}
	st.Report = reportOf(st.Report, rep)
	setup, game := st, st
	setup.Kind, game.Kind = state.KindTokenRejected, state.KindInGame
	set := map[string]bool{}
	for _, g := range []gpio.Status{ToGPIOStatus(setup, time.Now()), ToGPIOStatus(game, time.Now())} {
		v := reflect.ValueOf(g)
		zero := map[string]bool{}
		for _, z := range zeroFields(v, "gpio.Status") {
			zero[z] = true
		}
		for _, p := range leafPaths(v.Type(), "gpio.Status") {
			if !zero[p] {
				set[field(p)] = true
			}
		}
	}
	set["gpio.Status.Kind"] = true // Starting is its zero value
	for _, p := range leafPaths(reflect.TypeFor[gpio.Status](), "gpio.Status") {
		assert.True(t, set[field(p)], "%s is never filled by ToGPIOStatus", field(p))
	}
}

// leafPaths lists the leaf fields of type t (slices as their first two
// elements, as fill makes them).
func leafPaths(t reflect.Type, path string) []string {
	switch t.Kind() {
	case reflect.Struct:
		if t == reflect.TypeFor[time.Time]() {
			return []string{path}
		}
		var out []string
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				out = append(out, leafPaths(f.Type, path+"."+f.Name)...)
			}
		}
		return out
	case reflect.Slice:
		var out []string
		for i := range 2 {
			out = append(out, leafPaths(t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	}
	return []string{path}
}

// field drops the slice indices of a path: gpio.Status.Game.Legs.MyTurn.
func field(path string) string { return indexRE.ReplaceAllString(path, "") }

var indexRE = regexp.MustCompile(`\[[0-9]+\]`)

// jsonNamed lists, by path, the fields reachable from t that carry a
// struct tag.
func jsonNamed(t reflect.Type, path string, seen map[reflect.Type]bool) []string {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return jsonNamed(t.Elem(), path+"[]", seen)
	case reflect.Struct:
	default:
		return nil
	}
	if seen[t] || t == reflect.TypeFor[time.Time]() {
		return nil
	}
	seen[t] = true
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag != "" {
			out = append(out, path+"."+f.Name+" `"+string(f.Tag)+"`")
		}
		out = append(out, jsonNamed(f.Type, path+"."+f.Name, seen)...)
	}
	return out
}

// TestBotTypesHaveNoJSONNames: the bot reports in plain Go types, and the
// JSON names of /api/status and /api/games are the appliance's alone
// (appliance/state): neither the bot's status nor the game store's
// carries a tag that a reader could take for the contract.
func TestBotTypesHaveNoJSONNames(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[bot.Status](), reflect.TypeFor[record.StoreStatus]()} {
		assert.Empty(t, jsonNamed(typ, typ.String(), map[reflect.Type]bool{}), "tags of %v", typ)
	}
}

// TestEveryStoreFieldReachesAPIStatus: every field of the game store's
// status, filled, goes through the appliance's copy (state.GameStoreOf)
// out as /api/status JSON and back equal, in the field of the same name.
func TestEveryStoreFieldReachesAPIStatus(t *testing.T) {
	var ss record.StoreStatus
	n := 0
	fill(reflect.ValueOf(&ss).Elem(), &n)
	require.Empty(t, zeroFields(reflect.ValueOf(ss), "record.StoreStatus"), "the filler reaches every field")
	hub := state.NewHub(nil)
	hub.Update(func(st *state.Status) { st.Games = state.GameStoreOf(ss) })
	b, err := hub.Snapshot().JSON()
	require.NoError(t, err)
	var got state.Status
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Empty(t, sameFields(ss, got.Games, "Games"))
}
