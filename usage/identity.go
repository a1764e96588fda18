package usage

import (
	"net/url"
	"strings"
)

// The pricing authorities: hosts that publish the price list they bill by.
const (
	AuthorityAnthropic  = "api.anthropic.com"
	AuthorityOpenAI     = "api.openai.com"
	AuthorityOpenRouter = "openrouter.ai"                     // for OpenRouter's own price list
	AuthorityGoogleAI   = "generativelanguage.googleapis.com" // the Gemini API
)

// AuthorityFromBaseURL returns the pricing authority of a provider base URL
// such as "https://api.anthropic.com/v1", and false when none can be proven.
//
// The URL is only parsed, never contacted. It proves an authority only when
// it is an absolute https URL with no user info, no port other than 443, and
// a host equal (ignoring ASCII case) to one of the authority hosts. An empty
// port ("https://api.anthropic.com:/v1") is the scheme's default, 443, as
// RFC 3986 section 3.2.3 has it. Anything
// else — plain http, a proxy or gateway, a cloud reseller, a custom port, a
// subdomain or a lookalike such as "api.anthropic.com.evil.example", a
// trailing-dot host — proves nothing, because the bill then comes from
// someone whose price list this package does not know.
func AuthorityFromBaseURL(base string) (string, bool) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Opaque != "" {
		return "", false
	}
	if p := u.Port(); p != "" && p != "443" {
		return "", false
	}
	host := strings.ToLower(u.Hostname())
	switch host {
	case AuthorityAnthropic, AuthorityOpenAI, AuthorityOpenRouter, AuthorityGoogleAI:
		return host, true
	}
	return "", false
}

// IdentityFromBaseURL returns the pricing identity of calls to model through
// the provider at base, and false (with the zero Identity) when the base URL
// proves no authority (see [AuthorityFromBaseURL]) or model is empty.
func IdentityFromBaseURL(base, model, cacheClass string) (Identity, bool) {
	auth, ok := AuthorityFromBaseURL(base)
	if !ok || model == "" {
		return Identity{}, false
	}
	return Identity{Authority: auth, Model: model, CacheClass: cacheClass}, true
}
