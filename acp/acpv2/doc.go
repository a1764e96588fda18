// Package acpv2 is the draft ACP v2 beside package acp's v1: its types and
// typed method values, and a router that serves one connection with a v1
// and a v2 agent, chosen at initialize.
//
// Experimental: ACP v2 is a draft, and this package follows it: anything
// in it may change incompatibly, or be removed, in any release.
package acpv2

//go:generate go run ../../internal/acpgen -schema schema -names schema/names.txt -pkg acpv2 -out . -register -experimental
