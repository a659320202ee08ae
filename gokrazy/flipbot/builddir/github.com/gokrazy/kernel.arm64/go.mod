module gokrazy/build/flipbot-vm

go 1.26.8

require github.com/gokrazy/kernel.arm64 v0.0.0-20260705071517-37841c4d6ff1 // indirect
