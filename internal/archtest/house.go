package archtest

// The layers of the house, bottom up. A package imports from lower layers
// and from within its own top-level folder; anything else is an
// Exception of its rule.
const (
	// LayerLeaf is internal/: small helpers that every package may
	// import and that import nothing of the module but its roots (the
	// one clock interface, internal/clock).
	LayerLeaf = iota
	// LayerBase is flipsight (the API, no game logic), engines (rules,
	// built-in engine, adapters), gpio (LEDs and displays) and gokrazy
	// (host-side image tools): none of them imports another.
	LayerBase
	// LayerConfig is config: flags and environment, whose token and URLs
	// are flipsight's types and rules.
	LayerConfig
	// LayerPlayer is bot (the player) and arena (the local server), side
	// by side: neither's code imports the other.
	LayerPlayer
	// LayerDevice is appliance: the device runtime, which runs a bot.
	LayerDevice
	// LayerCommand is the commands: cmd/*, and the bot's tools under
	// bot/internal.
	LayerCommand
)

// House returns flipbot's table: for every package, what it may import
// within the module, and why. Arrows point down only:
//
//	cmd → appliance → bot, arena → config → flipsight, engines, gpio, gokrazy → internal
//
// The package comment of each package says the same in a line of its own
// (CheckDocs holds them to it).
func House() Table {
	const (
		// The packages the rules name, relative to the module root.
		arena       = "arena"
		arenatest   = "arena/arenatest"
		glicko      = "arena/glicko"
		egaroucidT  = "engines/egaroucid/egaroucidtest"
		enginetest  = "engines/internal/enginetest"
		ggf         = "engines/ggf"
		othello     = "engines/othello"
		proc        = "engines/proc"
		sizing      = "engines/sizing"
		adapt       = "engines/internal/adapt"
		timeplan    = "engines/timeplan"
		jsonline    = "engines/jsonline"
		search      = "engines/search"
		calib       = "engines/search/calib"
		eval        = "engines/eval"
		record      = "bot/record"
		flipsight   = "flipsight"
		engines     = "engines"
		bot         = "bot"
		config      = "config"
		gpio        = "gpio"
		appliance   = "appliance"
		astate      = "appliance/state"
		asettings   = "appliance/settings"
		astore      = "appliance/store"
		aweb        = "appliance/web"
		aratings    = "appliance/ratings"
		analysis    = "bot/analysis"
		abootfs     = "appliance/bootfs"
		amdns       = "appliance/mdns"
		egaroucid   = "engines/egaroucid"
		nboard      = "engines/nboard"
		edax        = "engines/edax"
		external    = "engines/external"
		route       = "engines/route"
		train       = "engines/eval/train"
		disk        = "gokrazy/disk"
		instance    = "gokrazy/instance"
		vm          = "gokrazy/vm"
		ledPkg      = "gpio/led"
		ledtest     = "gpio/led/ledtest"
		ssd1306     = "gpio/ssd1306"
		hd44780     = "gpio/hd44780"
		boardview   = "internal/boardview"
		botVsArena  = "the bot's tests play it against the arena over HTTP, behind the arena's fault front (end to end, as the soak does); bot and arena sit side by side and neither's code imports the other"
		realEngines = "real_test.go plays the real Edax and Egaroucid through a bot against the arena, end to end; test-only, and nothing that engines/external's code imports imports it back"
	)
	return Table{
		Roots:      []string{"internal/clock"},
		Leaves:     []string{"internal/atomicfile", "internal/fat", "internal/logagg", "internal/text", "internal/version", "internal/wait"},
		TestLeaves: []string{"internal/clock/clocktest", "internal/testutil", "internal/testutil/browser", "internal/winetest"},
		Rules: []Rule{
			// Commands: thin mains that wire the layers below together.
			{Pkg: "cmd/flipbot", Layer: LayerCommand,
				Imports: []string{appliance, bot, analysis, record, config, engines, eval, external, othello, proc, search, flipsight, gpio},
				Tests:   []string{arena, egaroucidT, ggf},
				Why:     "the connector, its games and challenge tools, the display preview and the appliance's entry point; its tests play against the arena"},
			{Pkg: "cmd/flipbot-arena", Layer: LayerCommand,
				Imports: []string{arena, record, config, engines, jsonline, othello, flipsight},
				Tests:   []string{ggf},
				Why:     "serves the arena and runs tournaments between engines; it plays no bot of its own (no bot import)"},
			{Pkg: "cmd/flipengine", Layer: LayerCommand,
				Imports: []string{bot, engines, eval, train, ggf, othello, search, calib, timeplan},
				Why:     "the rules and the built-in engine on their own; its engine command plans with the one clock planner (engines/timeplan) and the bot's overhead meter (bot.OverheadMeter), as the connector does"},
			{Pkg: "cmd/flipbot-image", Layer: LayerCommand,
				Imports: []string{astore, disk, instance, vm, ledPkg, ledtest},
				Why:     "the Makefile's image helper on the host: gokrazy's tools, the appliance's token file format (appliance/store), and the LED patterns it reads back from an emulated Pi (gpio/led, recognised by gpio/led/ledtest)"},
			{Pkg: "bot/internal/soak", Layer: LayerCommand,
				Imports: []string{arena, arenatest, bot, engines, eval, jsonline, othello, search, flipsight},
				Why:     "a command (the bot's soak benchmark, not shipped), kept beside the bot: a Bot against an in-process arena behind the fault front, its fallbacks the built-in engine's quick search as flipbot's"},
			{Pkg: "bot/internal/thinkuse", Layer: LayerCommand,
				Imports: []string{record, engines, eval, search, timeplan},
				Why:     "a command (how much of the clock plan's think the built-in engine spends, not shipped): flipbot's own moves of game records asked again of the engine as the bot asks"},
			{Pkg: "bot/internal/idlecpu", Layer: LayerCommand,
				Imports: []string{bot, config, engines, search, flipsight},
				Why:     "a command (the bot's idle-CPU benchmark, not shipped): a Bot with the built-in engine against a server"},

			// The device runtime.
			{Pkg: appliance, Layer: LayerDevice,
				Imports: []string{abootfs, amdns, aratings, asettings, astate, astore, aweb, bot, analysis, record, config, engines, egaroucid, eval, othello, proc, route, search, sizing, flipsight, gpio},
				Tests:   []string{arena, egaroucidT, ggf},
				Why:     "runs the device: a bot with its engines composed for the device, the pages, the files, the indicators; its end-to-end tests play against the arena"},
			{Pkg: aweb, Layer: LayerDevice,
				Imports: []string{astate, asettings, aratings, astore, record, config, othello, flipsight, boardview},
				Tests:   []string{analysis, search},
				Why:     "the pages: the status they show, the settings and token forms, the game records and analyses they list and replay, the rating history they draw; never the package appliance, which imports it"},
			{Pkg: aratings, Layer: LayerDevice,
				Imports: []string{astore},
				Why:     "the bot's rating over time, kept on /perm (the atomic file of appliance/store)"},
			{Pkg: asettings, Layer: LayerDevice,
				Imports: []string{astate, astore, gpio},
				Why:     "the owner's settings: the status's summary of them, their file, the display types and default pins"},
			{Pkg: astore, Layer: LayerDevice,
				Imports: []string{abootfs, config, flipsight},
				Why:     "the files on /perm: the token (a flipsight.Token, its environment variable's name from config) and the card's token file (appliance/bootfs)"},
			{Pkg: astate, Layer: LayerDevice,
				Imports: []string{record, bot},
				Why:     "the state model, a leaf of the appliance: its own types, /api/status's shape (the appliance copies the bot's report into them), and the game store's status; of the bot only the move counts' arithmetic and text (bot.MoveCounts, converted to); nothing of the pages or the hardware"},
			{Pkg: abootfs, Layer: LayerDevice,
				Why: "the device's own boot partition, read with internal/fat"},
			{Pkg: amdns, Layer: LayerDevice,
				Why: "the device's name on the local network (multicast DNS, DNS-SD): the standard library and golang.org/x/net only"},

			// The player and the local server.
			{Pkg: analysis, Layer: LayerPlayer,
				Imports: []string{record, engines, othello, search},
				Tests:   []string{eval},
				Why:     "a finished game analysed by the built-in engine: every move's loss, the turning points; the record's analysis type (its tests also search with the trained evaluation)"},
			{Pkg: record, Layer: LayerPlayer,
				Imports: []string{ggf, othello, flipsight},
				Why:     "finished games: the rules replay them, GGF exports them, the wire's limits bound them"},
			{Pkg: bot, Layer: LayerPlayer,
				Imports: []string{record, engines, othello, timeplan, flipsight},
				Tests:   []string{jsonline, proc, search},
				Exceptions: []Exception{
					{Import: arena, TestOnly: true, Why: botVsArena},
					{Import: arenatest, TestOnly: true, Why: botVsArena},
				},
				Why: "the player: the API through flipsight, any engine through the engines interface, the rules for its own checks, the one clock planner (engines/timeplan) for its engines' budgets; never a particular engine"},
			{Pkg: arenatest, Layer: LayerPlayer,
				Imports: []string{arena, flipsight},
				Why:     "test doubles around the arena's handler (the fault front, a restartable endpoint)"},
			{Pkg: glicko, Layer: LayerPlayer,
				Why: "the Glicko-2 rating system the arena rates its bots with: arithmetic, no imports"},
			{Pkg: arena, Layer: LayerPlayer,
				Imports: []string{glicko, engines, othello, search, flipsight, boardview},
				Tests:   []string{jsonline, proc},
				Why:     "the local server: the wire types it serves, the rules it referees with, the built-in engine its house bots play, the rating system it rates them with"},

			// Flags and environment.
			{Pkg: config, Layer: LayerConfig,
				Imports: []string{flipsight},
				Why:     "flags and environment variables: the token is a flipsight.Token and URLs are checked by flipsight's rules, so config sits just above flipsight"},

			// The base: the API, the engines, the hardware, the image tools.
			{Pkg: flipsight, Layer: LayerBase,
				Why: "the API seen from Go: wire types, client, stream; no game logic, nothing of engines"},
			{Pkg: engines, Layer: LayerBase,
				Imports: []string{othello},
				Why:     "the Engine interface: a request is a position of the rules"},
			{Pkg: othello, Layer: LayerBase,
				Why: "the rules: the bottom of the engines"},
			{Pkg: ggf, Layer: LayerBase,
				Imports: []string{othello},
				Tests:   []string{enginetest},
				Why:     "GGF game records of positions of the rules"},
			{Pkg: eval, Layer: LayerBase,
				Imports: []string{othello},
				Why:     "the evaluations of positions"},
			{Pkg: train, Layer: LayerBase,
				Imports: []string{eval, othello, search},
				Why:     "the evaluation's training: self-play with the built-in search, fits of eval's patterns"},
			{Pkg: search, Layer: LayerBase,
				Imports: []string{engines, eval, othello, timeplan},
				Why:     "the built-in engine: implements engines.Engine on the rules with eval's scores, its think and budget from the one clock planner (engines/timeplan)"},
			{Pkg: calib, Layer: LayerBase,
				Imports: []string{eval, othello, search},
				Why:     "the built-in engine's Multi-ProbCut calibration and the Go tables it writes (flipengine probcut), out of the search package that reads them"},
			{Pkg: timeplan, Layer: LayerBase,
				Imports: []string{engines, othello},
				Why:     "the one clock planner: how long a move may think, from the mover's clock (engines' spec budget) and the moves left in the position (the rules)"},
			{Pkg: route, Layer: LayerBase,
				Imports: []string{engines, othello},
				Why:     "a provider per game mode, over any providers"},
			{Pkg: sizing, Layer: LayerBase,
				Why: "memory and threads of the external engines from the machine: the standard library only"},
			{Pkg: proc, Layer: LayerBase,
				Tests: []string{enginetest},
				Exceptions: []Exception{
					{Import: config, TestOnly: true, Why: "env_test.go pins the token variable that proc keeps out of engines to config's TokenEnv; proc's code cannot import config, which sits above the engines"},
				},
				Why: "one external engine process and its tree: the standard library only"},
			{Pkg: adapt, Layer: LayerBase,
				Imports: []string{engines, othello, timeplan},
				Why:     "what the external-engine adapters share"},
			{Pkg: enginetest, Layer: LayerBase,
				Imports: []string{engines, ggf, othello},
				Why:     "test helpers of the adapters: the one fake engine (JSON-line, NBoard, Edax; ggf for NBoard's games), leak checks, positions"},
			{Pkg: jsonline, Layer: LayerBase,
				Imports: []string{engines, adapt, othello, proc},
				Tests:   []string{enginetest},
				Why:     "the JSON-line adapter: a process (proc) speaking the spec's request of the rules"},
			{Pkg: nboard, Layer: LayerBase,
				Imports: []string{engines, ggf, adapt, othello, proc},
				Tests:   []string{enginetest},
				Why:     "the NBoard adapter: a process (proc) given GGF positions"},
			{Pkg: edax, Layer: LayerBase,
				Imports: []string{engines, adapt, nboard},
				Tests:   []string{ggf, enginetest, othello},
				Why:     "Edax as an NBoard engine"},
			{Pkg: egaroucid, Layer: LayerBase,
				Imports: []string{engines, adapt, othello, proc, timeplan},
				Tests:   []string{egaroucidT, enginetest, sizing},
				Why:     "the Egaroucid adapter and its pool: a process (proc) speaking Egaroucid's console"},
			{Pkg: egaroucidT, Layer: LayerBase,
				Imports: []string{enginetest, othello},
				Why:     "a fake Egaroucid for tests, built on the adapters' fake-engine plumbing"},
			{Pkg: external, Layer: LayerBase,
				Imports: []string{engines, edax, egaroucid, adapt, jsonline, nboard, othello, sizing},
				Tests:   []string{egaroucidT, enginetest, proc},
				Exceptions: []Exception{
					{Import: arena, TestOnly: true, Why: realEngines},
					{Import: bot, TestOnly: true, Why: realEngines},
					{Import: flipsight, TestOnly: true, Why: realEngines},
				},
				Why: "builds the adapter the connector's flags ask for, sized for the machine"},
			{Pkg: gpio, Layer: LayerBase,
				Imports: []string{hd44780, ledPkg, ssd1306},
				Why:     "the status on LEDs and displays through its drivers; nothing of the appliance"},
			{Pkg: ledPkg, Layer: LayerBase,
				Why: "the LED driver, on periph.io"},
			{Pkg: ledtest, Layer: LayerBase,
				Imports: []string{ledPkg},
				Why:     "test support beside the LED driver (as periph's gpiotest): its patterns recognised in an LED's samples"},
			{Pkg: ssd1306, Layer: LayerBase,
				Why: "the OLED driver, on periph.io"},
			{Pkg: hd44780, Layer: LayerBase,
				Why: "the LCD driver, on periph.io"},
			{Pkg: "gokrazy/imagetest", Layer: LayerBase,
				Tests: []string{disk, instance, vm},
				Exceptions: []Exception{
					{Import: ledPkg, TestOnly: true, Why: "the emulated Pi's test reads the LEDs back from the SoC and recognises gpio/led's own patterns in them (ledtest.Recognise); gpio/led imports nothing of gokrazy"},
					{Import: ledtest, TestOnly: true, Why: "the emulated Pi's test recognises gpio/led's patterns in the LEDs read back from the SoC (ledtest.Recognise); gpio/led/ledtest imports nothing of gokrazy"},
				},
				Why: "the image tests: build, read back and boot the image with the gokrazy tools"},
			{Pkg: vm, Layer: LayerBase,
				Imports: []string{disk},
				Why:     "boots images under QEMU: the card's partitions and boot files through gokrazy/disk"},
			{Pkg: "gokrazy/...", Layer: LayerBase,
				Why: "host-side tools for images and VMs: they know the appliance by its paths and flags, never by its code"},

			// The leaves.
			{Pkg: boardview, Layer: LayerLeaf,
				Why: "the board drawn in SVG (coordinates, discs, marks) that the appliance's replay page and the arena's page share: one drawing below both, fed cells, so it imports nothing of the module"},
			{Pkg: "internal/...", Layer: LayerLeaf,
				Why: "helpers for every layer: they import nothing of the module"},
		},
	}
}
