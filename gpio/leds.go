package gpio

import "flipbot.dev/flipbot/gpio/led"

// LEDPatterns returns the patterns of the three status LEDs for st:
//
//	state            green        yellow      red
//	starting         heartbeat    off         off
//	waiting-clock    heartbeat    off         off
//	connecting       slow blink   off         off
//	idle             on           off         off
//	ingame           on           slow blink  off
//	setup            off          off         double blink
//	token-rejected   off          off         fast blink
//	no-network       off          off         slow blink
//	storage-missing  off          off         on
func LEDPatterns(st Status) (green, yellow, red led.Pattern) {
	switch st.Kind {
	case Starting, WaitingClock:
		return led.Heartbeat, led.Off, led.Off
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
	}
	return led.Off, led.Off, led.FastBlink
}

// ACTPattern returns the pattern of the board's single ACT LED for st,
// used when no status LED is wired:
//
//	state                         ACT
//	idle                          on
//	ingame                        heartbeat
//	starting, waiting-clock,
//	connecting, no-network        slow blink
//	setup                         double blink
//	token-rejected,
//	storage-missing               fast blink
func ACTPattern(st Status) led.Pattern {
	switch st.Kind {
	case OnlineIdle:
		return led.On
	case InGame:
		return led.Heartbeat
	case Starting, WaitingClock, Connecting, NoNetwork:
		return led.SlowBlink
	case SetupNeeded:
		return led.DoubleBlink
	}
	return led.FastBlink
}
