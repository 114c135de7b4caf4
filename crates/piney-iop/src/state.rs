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

/// Every native library piney has (the kernel's and the native modules').
fn all_libraries() -> Vec<&'static LibDef> {
    crate::kernel::loadcore::libraries()
}

/// The `&'static` copy of a library or boot module name that piney's tables hold.
pub fn intern(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("");
    }
    if let Some(l) = all_libraries().into_iter().find(|l| l.name == name) {
        return Some(l.name);
    }
    if name == crate::kernel::loadcore::INTERNAL.name {
        return Some(crate::kernel::loadcore::INTERNAL.name);
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
            .chain(std::iter::once(&crate::kernel::loadcore::INTERNAL))
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

/// ioman's native files: the tty's (fds 0 to 2 of every IOP) are saved; a file open on the
/// host or rom0 is not yet (its host handle or position would be lost), and refuses the save.
pub mod native_file {
    use super::*;
    use crate::modules::fileio::{IoFile, Tty};

    /// Writes a tty file's mark.
    pub fn serialize<S: Serializer>(v: &Box<dyn IoFile>, s: S) -> Result<S::Ok, S::Error> {
        if v.is_tty() {
            "tty".serialize(s)
        } else {
            Err(S::Error::custom(
                "an IOP program has a host or rom0 file open: states cannot hold open files yet",
            ))
        }
    }

    /// Makes the tty file again.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Box<dyn IoFile>, D::Error> {
        match String::deserialize(d)?.as_str() {
            "tty" => Ok(Box::new(Tty)),
            n => Err(D::Error::custom(format!(
                "an IOP file of a kind piney does not have: {n}"
            ))),
        }
    }
}
