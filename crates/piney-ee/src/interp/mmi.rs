//! Semantics of the mmi family.
