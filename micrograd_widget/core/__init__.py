"""The tape and its machinery: THE op table, the frozen graph and its replay, the spec codec, gradcheck."""
