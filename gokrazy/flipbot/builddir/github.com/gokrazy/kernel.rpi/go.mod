module gokrazy/build/flipbot

go 1.26.8

require github.com/gokrazy/kernel.rpi v0.0.0-20251127164438-9778ec0261de // indirect
