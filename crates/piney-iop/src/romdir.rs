//! ROMDIR images: the file system of the BIOS ROM and of the IOPRP images games reboot the IOP
//! with (`sceSifRebootIop("cdrom0:\\IOPRP300.IMG;1")`, which becomes the reboot argument
//! `rom0:UDNL cdrom0:\IOPRP300.IMG;1`), and the boot list (IOPBTCONF) they carry.
//!
//! The format (romdrv's and UDNL's): the image is a sequence of files, each starting on a
//! 16-byte boundary. The directory is itself a file, named ROMDIR, of 16-byte entries
//! `{ name[10] (NUL-padded), u16 extinfo_size, u32 size }`, ending with an all-zero entry. The
//! first entry is RESET, whose size equals the directory's offset in the image (0 in an IOPRP
//! image, the reset code's size in a BIOS); the next are ROMDIR (the directory's size) and
//! EXTINFO (the size of the extended information, where each file has `extinfo_size` bytes of
//! fields `{ u16 value, u8 length, u8 type }` followed by `length` bytes: type 1 a date, 2 a
//! version (in `value`), 3 a comment, 0x7f "fixed").
//!
//! IOPBTCONF is the boot list: one entry per line; `#` starts a comment, `@ADDR` the load
//! address, `!addr ADDR` a module at a fixed address, `!include NAME` another list; any other
//! line names a module, found in the newest image that holds it with the highest version.
//!
//! Contract: [`parse`] checks every offset against the image (a broken image is one error
//! naming what and where, never a panic); names compare as the console compares them, the
//! first 10 bytes, exactly.

/// One file of an image.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RomFile {
    /// Its name (at most 10 bytes).
    pub name: String,
    /// Its bytes.
    pub data: Vec<u8>,
    /// The version in its extended information (type 2), if any.
    pub version: Option<u16>,
}

/// A parsed ROMDIR image.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RomImage {
    /// Where it came from (a path), for messages.
    pub source: String,
    /// Its files in directory order (RESET, ROMDIR and EXTINFO included).
    pub files: Vec<RomFile>,
}

impl RomImage {
    /// The file named `name`, if the image holds it.
    pub fn file(&self, name: &str) -> Option<&RomFile> {
        self.files.iter().find(|f| f.name == name)
    }
}

const ENTRY: usize = 16;
const RESET: &[u8; 10] = b"RESET\0\0\0\0\0";

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Parse `data` (named `source` in errors): find the directory as UDNL does (a RESET entry
/// whose size, rounded up to 16, is its own offset), then read every file.
pub fn parse(source: &str, data: &[u8]) -> Result<RomImage, String> {
    let err = |what: String| format!("ROM image {source}: {what}");
    let dir = (0..data.len().saturating_sub(ENTRY - 1))
        .step_by(ENTRY)
        .find(|&at| {
            data[at..at + 10] == RESET[..]
                && (u32_at(data, at + 12) as usize).div_ceil(16) * 16 == at
        })
        .ok_or_else(|| err("no ROMDIR (no RESET entry at its own offset)".into()))?;
    let mut entries = Vec::new();
    let mut at = dir;
    loop {
        if at + ENTRY > data.len() {
            return Err(err(format!(
                "the directory runs past the end at {at:#x} (no terminating entry)"
            )));
        }
        if data[at..at + ENTRY].iter().all(|&b| b == 0) {
            break;
        }
        let raw = &data[at..at + 10];
        let len = raw.iter().position(|&b| b == 0).unwrap_or(10);
        let name = String::from_utf8_lossy(&raw[..len]).into_owned();
        entries.push((
            name,
            u16_at(data, at + 10) as usize,
            u32_at(data, at + 12) as usize,
        ));
        at += ENTRY;
    }
    // The EXTINFO file's data: the extended information, entry by entry.
    let mut offset = 0usize;
    let mut extinfo_at = None;
    let mut placed = Vec::with_capacity(entries.len());
    for (name, _, size) in &entries {
        if name == "EXTINFO" {
            extinfo_at = Some(offset);
        }
        placed.push(offset);
        offset = offset
            .checked_add(size.div_ceil(16) * 16)
            .ok_or_else(|| err(format!("file {name}: its size {size:#x} overflows")))?;
    }
    let mut files = Vec::with_capacity(entries.len());
    let mut ext = extinfo_at.unwrap_or(0);
    for ((name, ext_size, size), start) in entries.iter().zip(placed) {
        let end = start
            .checked_add(*size)
            .filter(|&e| e <= data.len())
            .ok_or_else(|| {
                err(format!(
                    "file {name} ({size:#x} bytes at {start:#x}) lies past the end ({:#x} bytes)",
                    data.len()
                ))
            })?;
        let mut version = None;
        if *ext_size > 0 {
            let fields_end = ext + ext_size;
            if extinfo_at.is_none() || fields_end > data.len() {
                return Err(err(format!(
                    "file {name}: its extended information ({ext_size} bytes at {ext:#x}) lies outside the image"
                )));
            }
            let mut f = ext;
            while f + 4 <= fields_end {
                let (value, length, kind) = (u16_at(data, f), data[f + 2] as usize, data[f + 3]);
                if kind == 2 {
                    version = Some(value);
                }
                f += 4 + length;
            }
            ext = fields_end;
        }
        files.push(RomFile {
            name: name.clone(),
            data: data[start..end].to_vec(),
            version,
        });
    }
    Ok(RomImage {
        source: source.to_string(),
        files,
    })
}

/// A line of a boot list.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BootLine {
    /// Load and start this module.
    Module(String),
    /// `!include NAME`: the boot list in file NAME.
    Include(String),
    /// `@ADDR`, `!addr ADDR` and anything else a boot list may hold that is not a module.
    Other(String),
}

/// The lines of an IOPBTCONF file, in order (comments left out).
pub fn boot_list(text: &[u8]) -> Vec<BootLine> {
    text.split(|&c| c < 0x20)
        .filter(|l| !l.is_empty())
        .filter_map(|l| {
            let l = String::from_utf8_lossy(l).into_owned();
            match l.as_bytes()[0] {
                b'#' => None,
                b'@' => Some(BootLine::Other(l)),
                b'!' => Some(match l.strip_prefix("!include ") {
                    Some(n) => BootLine::Include(n.trim().to_string()),
                    None => BootLine::Other(l),
                }),
                // The name: up to 10 bytes, to the first blank.
                _ => Some(BootLine::Module(
                    l.split(' ').next().unwrap_or("").chars().take(10).collect(),
                )),
            }
        })
        .collect()
}

/// The module `name` from `images` (oldest first) as UDNL picks it: the highest version, the
/// newest image on a tie.
pub fn select<'a>(images: &'a [RomImage], name: &str) -> Option<&'a RomFile> {
    let mut best: Option<&RomFile> = None;
    for img in images.iter().rev() {
        if let Some(f) = img.file(name)
            && best.is_none_or(|b| b.version.unwrap_or(0) < f.version.unwrap_or(0))
        {
            best = Some(f);
        }
    }
    best
}

/// Build an image from `(name, data, version)` files (for tests and tools): RESET (empty),
/// ROMDIR, EXTINFO, then the files, each with a version field when given.
pub fn build(files: &[(&str, &[u8], Option<u16>)]) -> Vec<u8> {
    let mut ext = Vec::new();
    let mut ext_sizes = Vec::new();
    for (_, _, v) in files {
        match v {
            Some(v) => {
                ext.extend_from_slice(&v.to_le_bytes());
                ext.extend_from_slice(&[0, 2]);
                ext_sizes.push(4u16);
            }
            None => ext_sizes.push(0),
        }
    }
    let n = files.len() + 3;
    let dir_size = (n + 1) * ENTRY;
    let mut dir = Vec::with_capacity(dir_size);
    let mut entry = |name: &str, ext_size: u16, size: usize| {
        let mut e = [0u8; ENTRY];
        e[..name.len().min(10)].copy_from_slice(&name.as_bytes()[..name.len().min(10)]);
        e[10..12].copy_from_slice(&ext_size.to_le_bytes());
        e[12..16].copy_from_slice(&(size as u32).to_le_bytes());
        dir.extend_from_slice(&e);
    };
    entry("RESET", 0, 0);
    entry("ROMDIR", 0, dir_size);
    entry("EXTINFO", 0, ext.len());
    for ((name, data, _), es) in files.iter().zip(&ext_sizes) {
        entry(name, *es, data.len());
    }
    dir.extend_from_slice(&[0; ENTRY]);
    let mut out = dir;
    let pad = |v: &mut Vec<u8>| v.resize(v.len().div_ceil(16) * 16, 0);
    pad(&mut out);
    out.extend_from_slice(&ext);
    pad(&mut out);
    for (_, data, _) in files {
        out.extend_from_slice(data);
        pad(&mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_images_parse_back() {
        let img = build(&[
            (
                "IOPBTCONF",
                b"# boot\nSYSMEM\n@800\nMYMOD\n!include MORE\n",
                None,
            ),
            ("MYMOD", &[1, 2, 3], Some(0x0102)),
            ("MORE", b"OTHER", None),
        ]);
        let r = parse("test", &img).unwrap();
        let names: Vec<_> = r.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["RESET", "ROMDIR", "EXTINFO", "IOPBTCONF", "MYMOD", "MORE"]
        );
        assert_eq!(r.file("MYMOD").unwrap().data, [1, 2, 3]);
        assert_eq!(r.file("MYMOD").unwrap().version, Some(0x0102));
        assert_eq!(
            boot_list(&r.file("IOPBTCONF").unwrap().data),
            [
                BootLine::Module("SYSMEM".into()),
                BootLine::Other("@800".into()),
                BootLine::Module("MYMOD".into()),
                BootLine::Include("MORE".into()),
            ]
        );
    }

    #[test]
    fn the_highest_version_wins_then_the_newest_image() {
        let a = parse("a", &build(&[("M", b"old", Some(0x0200))])).unwrap();
        let b = parse("b", &build(&[("M", b"new", Some(0x0100))])).unwrap();
        let c = parse("c", &build(&[("M", b"tie", Some(0x0200))])).unwrap();
        assert_eq!(select(&[a.clone(), b.clone()], "M").unwrap().data, b"old");
        assert_eq!(select(&[a, b, c], "M").unwrap().data, b"tie");
    }

    #[test]
    fn broken_images_are_errors() {
        let img = build(&[("MYMOD", &[7; 40], Some(1))]);
        assert!(parse("x", &[]).is_err());
        let e = parse("x", &img[..20]).unwrap_err();
        assert!(e.contains("runs past the end"), "{e}");
        for cut in (0..img.len()).step_by(7) {
            let _ = parse("x", &img[..cut]);
        }
        let mut big = img.clone();
        // MYMOD's size (entry 3): far past the end.
        big[3 * 16 + 12..3 * 16 + 16].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
        let e = parse("x", &big).unwrap_err();
        assert!(e.contains("MYMOD") && e.contains("past the end"), "{e}");
        // Random bytes: errors or images, never a panic.
        let mut s = 0x1234_5678u32;
        for _ in 0..2000 {
            let mut m = img.clone();
            for _ in 0..4 {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                let i = s as usize % m.len();
                m[i] = (s >> 8) as u8;
            }
            let _ = parse("x", &m);
        }
    }
}
