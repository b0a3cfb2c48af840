"""Pictures of a graph: the fold hierarchy and its rules, DOT writing, THE escaping function, colours."""
