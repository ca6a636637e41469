//! The pure model: the wire types and the rules over them. No I/O happens here.

pub mod digest;
