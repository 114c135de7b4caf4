//! Semantics of the integer family.
