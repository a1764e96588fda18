// Package timeparse converts the timestamps that command-line agents print
// into Unix epoch milliseconds.
//
// Agents report instants in several shapes: epoch seconds, epoch
// milliseconds, either one as a float or inside a JSON string, and RFC 3339
// text. The functions here accept all of them and answer in one unit, so a
// caller never has to guess.
//
// # Seconds or milliseconds
//
// A numeric epoch below 10^12 is read as seconds and multiplied by 1000; at or
// above 10^12 it is already milliseconds. 10^12 milliseconds is September
// 2001 while 10^12 seconds is the year 33658, so every plausible instant falls
// clearly on one side. See [EpochMillis], [FloatEpochMillis] and [ParseMillis].
//
// # Zero and negative values
//
// The Claude Code CLI sends 0 where it does not know a reset time, and no
// agent reports instants before 1970. Zero and negative epochs therefore
// mean "unknown": every function reports ok == false for them, and an ok
// result is always a positive number of milliseconds.
//
// # Zones
//
// A [ZoneResolver] turns the name of a time zone into its location: the
// CLI packages' ParseResetTime all take one, for the reset times a CLI
// gives in a named zone's clock.
//
// The package is pure: it reads no clock, no files and no zone database.
package timeparse
