package acp_test

import (
	"context"
	"testing"

	"github.com/acpkit/acpkit/acp"
	"github.com/acpkit/acpkit/acp/acptest"
	"github.com/acpkit/acpkit/internal/testwait"
	"github.com/acpkit/acpkit/internal/wire"
	"github.com/google/go-cmp/cmp"
)

// A schema layer generated into another package of the module (ACP v2's)
// registers its codecs with internal/wire, as acpgen -register makes it
// do, and package acp's methods, decoders and encoders use them. These
// types stand in for such a package's.

type regParams struct {
	Name  string
	Count int
}

func (p *regParams) decodeFields(f *wire.Fields) {
	f.String("name", &p.Name, wire.Required)
	f.Int("count", &p.Count, wire.Lenient, 0, 10)
}

func (p regParams) appendJSON(e *wire.Encoder) {
	e.Open()
	e.Key("name")
	e.String(p.Name)
	if p.Count != 0 {
		e.Key("count")
		e.Int(int64(p.Count))
	}
	e.Close()
}

type regResult struct{ Echo string }

func (r *regResult) decodeFields(f *wire.Fields) { f.String("echo", &r.Echo, wire.Required) }

func (r regResult) appendJSON(e *wire.Encoder) {
	e.Open()
	e.Key("echo")
	e.String(r.Echo)
	e.Close()
}

func init() {
	wire.Register((*regParams).decodeFields, regParams.appendJSON)
	wire.Register((*regResult).decodeFields, regResult.appendJSON)
}

var regMethod = acp.Method[regParams, regResult]{Name: "_test/registered"}

// TestRegisteredCodecs checks that the registered codecs, not encoding/json
// and the struct's fields, read and write the registered types: the
// member names are the codec's, and count is read leniently.
func TestRegisteredCodecs(t *testing.T) {
	p, err := acp.DecodeParams[regParams]([]byte(`{"name":"a","count":"many"}`))
	if err != nil || p != (regParams{Name: "a"}) {
		t.Errorf("DecodeParams = %+v, %v; want the name and count read leniently as 0", p, err)
	}
	if _, err := acp.DecodeParams[regParams]([]byte(`{"count":1}`)); err == nil {
		t.Error("DecodeParams without the required name decoded")
	} else if field, _ := acp.InvalidField(err); field != "name" {
		t.Errorf("DecodeParams without the name: %v, want one naming name", err)
	}
	line, err := acp.MarshalRequest(acp.IntID(1), regMethod.Name, regParams{Name: "b"})
	if want := `{"jsonrpc":"2.0","id":1,"method":"_test/registered","params":{"name":"b"}}`; err != nil || string(line) != want {
		t.Errorf("MarshalRequest = %s, %v; want %s", line, err, want)
	}

	var agent acp.Methods
	regMethod.Handle(&agent, func(_ context.Context, _ *acp.Conn, p regParams) (regResult, error) {
		return regResult{Echo: p.Name}, nil
	})
	client, _, closePair := acptest.NewPair(context.Background(), nil, agent, nil)
	defer testwait.Do(t, "the pair to close", func() { closePair() })
	r, err := regMethod.Call(testwait.Context(t), client, regParams{Name: "c", Count: 2})
	if diff := cmp.Diff(regResult{Echo: "c"}, r); diff != "" || err != nil {
		t.Errorf("Call = %v (-want +got):\n%s", err, diff)
	}
}
