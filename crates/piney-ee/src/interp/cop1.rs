//! Semantics of the cop1 family.
