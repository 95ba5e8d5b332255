//! Node bindings of snodo (filled in by the Node work).
