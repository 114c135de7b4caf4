//! Save states: the parts of the IOP's state that name piney's own native code.
//!
//! Most of the IOP derives serde as it is. What refers to piney's code rather than to data
//! (the native function slots, the libraries' names, ioman's native devices and files) is
//! written by name and found again among piney's own tables when a state is read: a name piney
//! does not have is an error that refuses the state, never a slot left empty.

use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::kernel::{LibDef, Native};

/// Every native library piney has: the kernel's, the native modules', their internal tables
/// and the ones placed when a module loads (LIBSD).
fn all_libraries() -> Vec<&'static LibDef> {
    let mut v = crate::kernel::loadcore::libraries();
    v.push(&crate::kernel::loadcore::INTERNAL);
    v.push(&crate::modules::libsd::LIBSD);
    v.push(&crate::modules::libsd::LIBSD_INTERNAL);
    v
}

/// The `&'static` copy of a library or boot module name that piney's tables hold.
pub fn intern(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("");
    }
    if let Some(l) = all_libraries().into_iter().find(|l| l.name == name) {
        return Some(l.name);
    }
    crate::kernel::image::BOOT_MODULES
        .iter()
        .find(|m| m.name == name)
        .map(|m| m.name)
}

fn interned<E: serde::de::Error>(name: &str) -> Result<&'static str, E> {
    intern(name).ok_or_else(|| E::custom(format!("an IOP library piney does not have: {name}")))
}

/// `Vec<(&'static str, u32)>` (names from piney's tables).
pub mod static_names {
    use super::*;

    /// Writes the names as strings.
    pub fn serialize<S: Serializer>(v: &[(&'static str, u32)], s: S) -> Result<S::Ok, S::Error> {
        v.serialize(s)
    }

    /// Reads them back as piney's own names.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(&'static str, u32)>, D::Error> {
        Vec::<(String, u32)>::deserialize(d)?
            .into_iter()
            .map(|(n, a)| Ok((interned(&n)?, a)))
            .collect()
    }
}

/// `BTreeMap<(&'static str, u16), u32>` (a native export's address by library and index).
pub mod native_addr {
    use super::*;

    /// Writes the entries as (library, index, address).
    pub fn serialize<S: Serializer>(
        v: &BTreeMap<(&'static str, u16), u32>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|((l, i), a)| (*l, *i, *a)))
    }

    /// Reads them back with piney's own library names.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<(&'static str, u16), u32>, D::Error> {
        Vec::<(String, u16, u32)>::deserialize(d)?
            .into_iter()
            .map(|(l, i, a)| Ok(((interned(&l)?, i), a)))
            .collect()
    }
}

/// A native slot is written as its library and export index; reading it finds the function
/// in piney's library of that name.
impl Serialize for Native {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.lib, self.index).serialize(s)
    }
}

impl<'de> Deserialize<'de> for Native {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let (lib, index) = <(String, u16)>::deserialize(d)?;
        if lib.is_empty() {
            return Ok(Native {
                lib: "",
                index,
                name: "",
                func: None,
            });
        }
        let def = all_libraries()
            .into_iter()
            .find(|l| l.name == lib)
            .ok_or_else(|| {
                D::Error::custom(format!("an IOP library piney does not have: {lib}"))
            })?;
        let f = def.funcs.iter().find(|f| f.0 == index);
        Ok(Native {
            lib: def.name,
            index,
            name: f.map_or("", |f| f.1),
            func: f.map(|f| f.2),
        })
    }
}

/// ioman's native devices by name: the ones every IOP boots with.
pub mod native_device {
    use super::*;
    use crate::modules::fileio::{IoDevice, RomDevice, TtyDevice};

    /// Writes the device's name (only `tty` and `rom`, the boot set's, can be saved).
    // serde's `with` hands the field itself: a reference to the Box.
    #[allow(clippy::borrowed_box)]
    pub fn serialize<S: Serializer>(v: &Box<dyn IoDevice>, s: S) -> Result<S::Ok, S::Error> {
        match v.name() {
            n @ ("tty" | "rom") => n.serialize(s),
            n => Err(S::Error::custom(format!(
                "the IOP's native device {n}: cannot be saved yet"
            ))),
        }
    }

    /// Makes the device of that name again.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<dyn IoDevice>, D::Error> {
        match String::deserialize(d)?.as_str() {
            "tty" => Ok(Box::new(TtyDevice)),
            "rom" => Ok(Box::new(RomDevice)),
            n => Err(D::Error::custom(format!(
                "an IOP native device piney does not have: {n}"
            ))),
        }
    }
}

/// ioman's native files: the tty's (fds 0 to 2 of every IOP), and files open on the host or
/// rom0, saved as what opens them again at their position ([`SavedFile`]); loading a state
/// opens them again (never creating or truncating), and fails naming the file when a host file
/// has gone, before anything changes.
pub mod native_file {
    use super::*;
    use crate::modules::fileio::{IoFile, SavedFile};

    /// Writes how to open the file again.
    // serde's `with` hands the field itself: a reference to the Box.
    #[allow(clippy::borrowed_box)]
    pub fn serialize<S: Serializer>(v: &Box<dyn IoFile>, s: S) -> Result<S::Ok, S::Error> {
        match v.saved() {
            Some(f) => f.serialize(s),
            None => Err(S::Error::custom(
                "an IOP program has a file open whose position cannot be read",
            )),
        }
    }

    /// Opens the file again.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<dyn IoFile>, D::Error> {
        SavedFile::deserialize(d)?
            .reopen()
            .map_err(D::Error::custom)
    }
}

/// A value as save states write it (bincode 1.3's default: fixed-width little-endian).
pub fn encode<T: Serialize + ?Sized>(v: &T) -> Result<Vec<u8>, String> {
    bincode::serialize(v).map_err(|e| e.to_string())
}

/// A value read back from [`encode`]'s bytes, all of them.
pub fn decode<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    use bincode::Options;
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .reject_trailing_bytes()
        .deserialize(bytes)
        .map_err(|e| e.to_string())
}

/// A [`crate::Iop::save_state`] read and checked against a running IOP, ready to replace it.
pub struct DecodedIop {
    iop: Box<crate::Iop>,
    servers: Vec<Box<dyn std::any::Any>>,
}

impl crate::Iop {
    /// The whole IOP for a save state; an error names what cannot be saved now (an open host
    /// file, an open memory card file...).
    pub fn save_state(&self) -> Result<Vec<u8>, String> {
        let mut servers = Vec::new();
        for slot in &self.modules.slots {
            let Some(s) = &slot.server else { continue };
            servers.push((
                s.sid(),
                s.save_state().map_err(|e| format!("{}: {e}", s.name()))?,
            ));
        }
        // The IOP's own units, then the servers' (the Box is serialised as the IOP itself).
        let iop = encode(self)?;
        let mut out = encode(&(servers.len() as u64))?;
        for (sid, b) in &servers {
            out.extend(encode(sid)?);
            out.extend(encode(b)?);
        }
        let mut all = encode(&(iop.len() as u64))?;
        all.extend(iop);
        all.extend(out);
        Ok(all)
    }

    /// Reads a [`crate::Iop::save_state`] and checks it against this IOP (the same native
    /// servers, in the same order): nothing changes yet.
    pub fn decode_state(&self, bytes: &[u8]) -> Result<DecodedIop, String> {
        let cut = |b: &[u8], n: usize| -> Result<(Vec<u8>, usize), String> {
            if b.len() < 8 {
                return Err("the IOP's state ends early".into());
            }
            let len = u64::from_le_bytes(b[..8].try_into().unwrap_or_default()) as usize;
            if b.len() - 8 < len {
                return Err("the IOP's state ends early".into());
            }
            Ok((b[8..8 + len].to_vec(), n + 8 + len))
        };
        let (iop_bytes, mut at) = cut(bytes, 0)?;
        let mut iop: Box<crate::Iop> = Box::new(decode(&iop_bytes)?);
        if iop.bus.ram.len() != self.bus.ram.len() {
            return Err(format!(
                "the state's IOP RAM is {} bytes, not {}",
                iop.bus.ram.len(),
                self.bus.ram.len()
            ));
        }
        if bytes.len() < at + 8 {
            return Err("the IOP's state ends early".into());
        }
        let count = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default()) as usize;
        at += 8;
        let running: Vec<&Box<dyn crate::modules::NativeServer>> = self
            .modules
            .slots
            .iter()
            .filter_map(|s| s.server.as_ref())
            .collect();
        if count != running.len() || iop.modules.slots.len() != self.modules.slots.len() {
            return Err(format!(
                "the state's IOP has {count} native servers, this one {}",
                running.len()
            ));
        }
        let mut servers = Vec::new();
        for s in running {
            if bytes.len() < at + 4 {
                return Err("the IOP's state ends early".into());
            }
            let sid = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or_default());
            at += 4;
            if sid != s.sid() {
                return Err(format!(
                    "the state's IOP native server {sid:#x} is {:#x} ({}) here",
                    s.sid(),
                    s.name()
                ));
            }
            let (b, next) = cut(&bytes[at..], at)?;
            at = next;
            servers.push(
                s.decode_state(&b)
                    .map_err(|e| format!("{}: {e}", s.name()))?,
            );
        }
        if at != bytes.len() {
            return Err("the IOP's state has bytes after its end".into());
        }
        for (a, b) in iop.modules.slots.iter().zip(&self.modules.slots) {
            if a.loaded && b.server.is_none() {
                return Err("the state's IOP has a native server this one lacks".into());
            }
        }
        // Open `host:` files go under this run's folder (the one the loaded IOP keeps).
        let root = self.modules.host_root.clone().unwrap_or_else(|| ".".into());
        iop.modules.ioman.reopen_host_files(&root)?;
        Ok(DecodedIop { iop, servers })
    }

    /// Replaces this IOP with a decoded state, keeping its host objects: the disc in the
    /// drive, the SPU2's watch, the `host:` folder, the native servers (given their states).
    pub fn apply_state(&mut self, d: DecodedIop) {
        let mut new = *d.iop;
        new.disc = self.disc.take();
        new.bus.hw.spu2_watch = std::mem::take(&mut self.bus.hw.spu2_watch);
        new.modules.host_root = self.modules.host_root.take();
        for (n, o) in new
            .modules
            .slots
            .iter_mut()
            .zip(self.modules.slots.iter_mut())
        {
            n.server = o.server.take();
        }
        let mut states = d.servers.into_iter();
        for slot in &mut new.modules.slots {
            if let Some(s) = &mut slot.server
                && let Some(st) = states.next()
            {
                s.apply_state(st);
            }
        }
        *self = new;
    }
}
