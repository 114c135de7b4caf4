//! piney's native engine layer: game profiles and the native functions hooked into the emulated
//! program (DESIGN.md section 4, issue 6).
//!
//! Contract:
//! - A [`Profile`] says what is known of one program: serial, the ELF's FNV-1a 64 hash, symbol ->
//!   address, optionally the instruction words expected there, and which native functions to
//!   install. It comes from a TOML file ([`Profile::load`], errors name file and line) or, for our
//!   own programs, from the ELF's symbol table ([`Profile::from_elf_symbols`]).
//! - [`install`] puts the profile's native functions into a [`piney_machine::Machine`]'s hook
//!   table after the program is loaded; a hook whose expected words are not the loaded code, or
//!   that lacks a symbol, is refused with a warning (returned, for stderr), never installed.
//! - A native function replaces the whole guest function and leaves exactly the guest-visible
//!   state the guest's code would (the memory it writes; `$v0`), so that a run with hooks and one
//!   with `--no-hle` give the same frames and state. Registers the MIPS ABI lets a callee clobber,
//!   the FPU's sticky flags and the cycles the guest code would have taken are not reproduced.
//! - Nothing here panics on bad input: a profile, an ELF or guest memory that cannot be read gives
//!   an error naming what and where.

pub mod elfsym;
pub mod frame;
pub mod guest;
pub mod natives;
pub mod profile;
pub mod tasks;

pub use elfsym::SymbolError;
pub use natives::{Installed, NATIVES, install, ps2_atan2};
pub use profile::{Profile, ProfileError, Symbol, fnv1a64};
