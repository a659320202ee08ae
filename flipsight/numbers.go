package flipsight

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
)

// unmarshalTolerant decodes data into out like json.Unmarshal; when that
// fails only because a number does not fit its Go type, it retries once
// with every integral number rewritten as an integer (a server may write
// a millisecond time as 1800000000000.0 or 1.8e12 where the spec says
// integer).
func unmarshalTolerant(data []byte, out any) error {
	err := json.Unmarshal(data, out)
	var te *json.UnmarshalTypeError
	if err == nil || !errors.As(err, &te) || !strings.HasPrefix(te.Value, "number") {
		return err
	}
	norm, nerr := integralNumbers(data)
	if nerr != nil {
		return err
	}
	if err2 := json.Unmarshal(norm, out); err2 != nil {
		return err
	}
	return nil
}

// integralNumbers re-encodes a JSON document with integral floats written
// as integers.
func integralNumbers(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return json.Marshal(rewriteNumbers(v))
}

func rewriteNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = rewriteNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = rewriteNumbers(e)
		}
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return x
		}
		f, err := x.Float64()
		if err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
			return json.Number(strconv.FormatInt(int64(f), 10))
		}
	}
	return v
}
