//! The native modules beside the kernel: the devices module paths name (`host:`), the rom0
//! modules answered natively, and the continuations of native code waiting for guest code.
//!
//! Contract: [`read_file`] resolves a module path (`host:PATH` is a file relative to
//! [`Modules::host_root`]); [`load_native`] answers the rom0 modules piney emulates natively,
//! or `None` to load the path as a file.

use std::path::PathBuf;

use crate::kernel::{LibDef, kerr};
use crate::{Iop, IopError};

/// The native modules' state.
#[derive(Debug, Default)]
pub struct Modules {
    /// strtok's saved position.
    pub strtok_saved: u32,
    /// prnt's formatted text while its callback runs (a stack: prnt may nest).
    pub prnt_buffers: Vec<Vec<u8>>,
    /// The folder `host:` paths are relative to (the current folder when `None`).
    pub host_root: Option<PathBuf>,
}

/// The native libraries of the native modules, installed at boot beside the kernel's.
pub fn libraries() -> Vec<&'static LibDef> {
    Vec::new()
}

/// Boot-time set-up of the native modules.
pub fn boot(_iop: &mut Iop) {}

/// A native continuation by tag.
pub fn continuation(iop: &mut Iop, tag: u32, data: [u32; 6]) -> Result<(), IopError> {
    match tag {
        crate::kernel::time::CONT_VBLANK_CHAIN => {
            crate::kernel::time::vblank_chain_continue(iop, data)
        }
        crate::kernel::clib::CONT_PRNT => crate::kernel::clib::prnt_continue(iop, data),
        _ => Err(iop.fault(format!("unknown kernel continuation {tag:#x}"))),
    }
}

/// Take thread `id` off a native module's wait.
pub fn unwait(iop: &mut Iop, id: u32) {
    iop.vblank_unwait(id);
    for r in iop.kernel.loadcore.requests.iter_mut() {
        if r.waiter.is_some_and(|(t, _)| t == id) {
            r.waiter = None;
        }
    }
}

/// The bytes of the file a module path names, or the console's error code.
pub fn read_file(iop: &mut Iop, path: &str) -> Result<Vec<u8>, i32> {
    let (dev, rest) = path.split_once(':').unwrap_or(("", path));
    match dev {
        "host" | "host0" => {
            let rest = rest.trim_start_matches(['/', '\\']);
            let p = match &iop.modules.host_root {
                Some(r) => r.join(rest),
                None => PathBuf::from(rest),
            };
            match std::fs::metadata(&p) {
                Ok(m) if m.len() as usize > crate::irx::MAX_IMAGE => {
                    eprintln!("piney: iop: {path}: larger than the IOP's memory");
                    Err(kerr::FILEERR)
                }
                Ok(_) => std::fs::read(&p).map_err(|e| {
                    eprintln!("piney: iop: {path}: {e}");
                    kerr::FILEERR
                }),
                Err(_) => Err(kerr::NOFILE),
            }
        }
        _ => {
            iop.log_once(
                &format!("dev-{dev}"),
                &format!("module path {path}: no device \"{dev}:\" on this IOP"),
            );
            Err(kerr::NOFILE)
        }
    }
}

/// A rom0 module piney answers natively: its module id, or `None` to load `path` as a file.
pub fn load_native(_iop: &mut Iop, _path: &str) -> Option<i32> {
    None
}
