// Package state is the appliance's state model: one [Status] that says
// everything the device shows, kept by a [Hub] that publishes it to the
// pages, /api/status and the indicators.
//
// A Status is facts (the runtime's [Phase], where the token comes from,
// the bot's report, the device, /perm, the card's token file, the game
// records); its [Kind], the one word shown as "state", is derived from
// them on every Hub.Update, in the order of what the owner must act on
// first. Writers change the Status only through Hub.Update; readers take
// deep copies (Hub.Snapshot) or wait for changes (Hub.Subscribe).
//
// Files:
//
//   - kind.go: [Kind], its machine names (/api/status) and texts (pages).
//   - status.go: [Status] and its parts ([Phase], [TokenSource],
//     [EngineSettings], [Device], [Storage], [CardToken], and
//     [GameStore], the game store's status in the appliance's own type,
//     copied from record.StoreStatus by [GameStoreOf]).
//   - report.go: [Report], the bot's part, in the appliance's own types
//     ([BotInfo], [Match], [Leg], [Search], [MoveCounts], [Result]); the
//     appliance copies the bot's report (bot.Status) into them.
//   - hub.go: [Hub], the one owner of the Status.
//   - mirror.go: [Mirror], what the LEDs and the display show, for the
//     pages ([Light], [Screen]); computed by the appliance, not kept.
//   - network.go: "no network" told apart from "FlipSight unreachable"
//     (Device.NetworkUp), and an error reaching FlipSight as a sentence
//     people read ([NetworkCause], Status.NetworkSentence).
//
// # /api/status
//
// The JSON form of a Status is /api/status, the appliance's contract with
// the scripts and people that read it: the JSON names are these types'
// tags, and nothing else defines them (the bot's types and the game
// store's status have none; /api/games shows its store in [GameStore]
// too). The appliance's golden files (appliance/testdata/apistatus) hold
// the shape for representative states; a change to a tag or a field shows
// there.
//
// The package is a leaf of the appliance: it imports bot/record (the game
// store's status) and, of the bot, only what its move counts convert to
// (bot.MoveCounts, whose arithmetic and text [MoveCounts] uses, so they
// are written once); nothing of the appliance, of the pages or of the
// hardware (the gpio package has its own input type; the appliance maps a
// Status onto it).
package state
