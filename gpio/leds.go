package gpio

import "flipbot.dev/flipbot/gpio/led"

// LEDPatterns returns the patterns of the three status LEDs for st:
//
//	state            green        yellow      red
//	starting         heartbeat    off         off
//	waiting_clock    heartbeat    off         off
//	stopping         off          heartbeat   off
//	connecting       slow blink   off         off
//	online_idle      on           off         off
//	in_game          on           slow blink  off
//	setup_needed     off          off         double blink
//	token_rejected   off          off         fast blink
//	no_network       off          off         slow blink
//	storage_missing  off          off         on
//	engine_failed    off          on          fast blink
func LEDPatterns(st Status) (green, yellow, red led.Pattern) {
	switch st.Kind {
	case Starting, WaitingClock:
		return led.Heartbeat, led.Off, led.Off
	case Stopping:
		return led.Off, led.Heartbeat, led.Off
	case Connecting:
		return led.SlowBlink, led.Off, led.Off
	case OnlineIdle:
		return led.On, led.Off, led.Off
	case InGame:
		return led.On, led.SlowBlink, led.Off
	case SetupNeeded:
		return led.Off, led.Off, led.DoubleBlink
	case TokenRejected:
		return led.Off, led.Off, led.FastBlink
	case NoNetwork:
		return led.Off, led.Off, led.SlowBlink
	case StorageMissing:
		return led.Off, led.Off, led.On
	case EngineFailed:
		return led.Off, led.On, led.FastBlink
	}
	return led.Off, led.Off, led.FastBlink
}

// StatusLEDs returns LEDPatterns(st) as green, yellow and red in that
// order: the pins' mapping, for a page that draws the three LEDs.
func StatusLEDs(st Status) [3]led.Pattern {
	g, y, r := LEDPatterns(st)
	return [3]led.Pattern{g, y, r}
}

// ACTPattern returns the pattern of the board's single ACT LED for st,
// used when no status LED is wired:
//
//	state                         ACT
//	online_idle                   on
//	in_game                       heartbeat
//	starting, waiting_clock,
//	stopping, connecting,
//	no_network                    slow blink
//	setup_needed                  double blink
//	token_rejected,
//	storage_missing,
//	engine_failed                 fast blink
func ACTPattern(st Status) led.Pattern {
	switch st.Kind {
	case OnlineIdle:
		return led.On
	case InGame:
		return led.Heartbeat
	case Starting, WaitingClock, Stopping, Connecting, NoNetwork:
		return led.SlowBlink
	case SetupNeeded:
		return led.DoubleBlink
	}
	return led.FastBlink
}
