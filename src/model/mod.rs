//! The pure model: the wire types and the rules over them. Nothing here reads files, runs
//! processes or touches git; both wings (attest, verify) use these types and functions, so each
//! concept (the PAE, the canonical bytes, the clean check, every hash) exists exactly once.

pub mod audit_shapes;
pub mod bundle;
pub mod canonical;
pub mod clean;
pub mod collection;
pub mod dialect;
pub mod digest;
pub mod dsse;
pub mod evidence;
pub mod evidence_schema;
pub mod held;
pub mod held_out;
pub mod policy;
pub mod predicate;
pub mod published_held_out;
pub mod red;
pub mod refs;
pub mod regression;
pub mod shown;
pub mod statement;
pub mod summary;
pub mod test_result;
pub mod timestamp;
pub mod toml_bound;
pub mod toml_struct;
pub mod trailer_keys;
pub mod unique_members;
pub mod verifier_policy;
