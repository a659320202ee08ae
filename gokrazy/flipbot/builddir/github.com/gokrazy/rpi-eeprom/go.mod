module gokrazy/build/flipbot

go 1.26.8

require github.com/gokrazy/rpi-eeprom v0.0.0-20260518070910-95f7328a8228 // indirect
