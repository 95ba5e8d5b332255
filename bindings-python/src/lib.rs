//! Python bindings of snodo (filled in by the Python work).
