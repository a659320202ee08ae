module flipbot.dev/flipbot

go 1.26.0

require (
	github.com/gokrazy/gokrazy v0.0.0-20260418085648-c38c3134b8a7
	github.com/stretchr/testify v1.12.1
	golang.org/x/image v0.48.0
	golang.org/x/net v0.63.0
	golang.org/x/sys v0.50.0
	periph.io/x/conn/v3 v3.7.3
	periph.io/x/host/v3 v3.8.5
)

require (
	github.com/gokrazy/internal v0.0.0-20240629150625-a0f1dee26ef5 // indirect
	github.com/google/renameio/v2 v2.0.0 // indirect
	github.com/kenshaw/evdev v0.1.0 // indirect
	github.com/mdlayher/watchdog v0.0.0-20201005150459-8bdc4f41966b // indirect
	github.com/spf13/pflag v1.0.5 // indirect
	github.com/vishvananda/netlink v1.1.0 // indirect
	github.com/vishvananda/netns v0.0.0-20211101163701-50045581ed74 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
