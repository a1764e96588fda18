package acphttpos

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAuthenticator(t *testing.T) {
	dir := t.TempDir()
	token := filepath.Join(dir, "token")
	os.WriteFile(token, []byte("  s3cret\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	tests := []struct {
		file, addr, wantErr string
	}{
		{"", "127.0.0.1:0", ""},
		{"", "localhost:8080", ""},
		{"", "[::1]:0", ""},
		{"", ":8080", "without a token"},
		{"", "0.0.0.0:8080", "without a token"},
		{token, ":8080", ""},
		{empty, ":8080", "is empty"},
		{filepath.Join(dir, "missing"), ":8080", "no such file"},
	}
	for _, tt := range tests {
		_, err := authenticator(tt.file, tt.addr)
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("authenticator(%q, %q) = %v, want %q", tt.file, tt.addr, err, tt.wantErr)
		}
	}
}
