package gemini

// TestedVersion is the release of the Gemini CLI whose output and stored
// sessions this package was written against and tested with: the
// captures under testdata, where every format it reads comes from. A
// newer release is read as far as its formats agree; what it adds is
// skipped or kept as unknown.
const TestedVersion = "0.61.0"
