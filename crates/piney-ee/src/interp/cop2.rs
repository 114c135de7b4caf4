//! Semantics of the cop2 family.
