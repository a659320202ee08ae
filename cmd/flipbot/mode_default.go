//go:build !gokrazy

package main

// applianceByDefault is false off the device: plain `flipbot` is the connector.
const applianceByDefault = false
