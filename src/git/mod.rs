//! The repository through gix: objects, history, trailers, notes and refs.
