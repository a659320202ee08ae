//go:build gokrazy

package main

// applianceByDefault is true in a gokrazy image: the device boots into the appliance.
const applianceByDefault = true
