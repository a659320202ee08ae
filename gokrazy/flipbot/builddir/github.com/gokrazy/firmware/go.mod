module gokrazy/build/flipbot

go 1.26.8

require github.com/gokrazy/firmware v0.0.0-20260522070551-527ce0ed43cf // indirect
