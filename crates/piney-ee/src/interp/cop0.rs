//! Semantics of the cop0 family.
