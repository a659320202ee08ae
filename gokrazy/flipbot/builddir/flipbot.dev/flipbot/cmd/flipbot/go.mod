module gokrazy/build/flipbot.dev/flipbot

go 1.26.8

replace flipbot.dev/flipbot => ../../../../../../..

require flipbot.dev/flipbot v0.0.0-00010101000000-000000000000
