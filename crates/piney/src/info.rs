//! `piney info DISC`: what a disc is (serial, boot path, region, video mode, the boot ELF's CRC)
//! and the game profile piney picks for it; and that pick for `piney run DISC`.

use std::path::Path;
use std::process::ExitCode;

use piney_disc::{ImageFormat, MediaKind, SectorSource};

/// The profiles piney carries (profiles/), by serial: chosen for a disc with that serial
/// unless `--profile` names another. A file `SERIAL.toml` in the `profiles` folder of piney's
/// data folder takes their place.
const PROFILES: &[(&str, &str)] = &[
    (
        "PINY-00001",
        include_str!("../../../profiles/PINY-00001.toml"),
    ),
    (
        "SLUS-20267",
        include_str!("../../../profiles/SLUS-20267.toml"),
    ),
];

/// Where a serial's profile comes from, and its text.
fn profile_source(serial: &str) -> Option<(String, String)> {
    let user = crate::run::data_folder().map(|d| d.join("profiles").join(format!("{serial}.toml")));
    if let Some(path) = user.filter(|p| p.is_file()) {
        return match std::fs::read_to_string(&path) {
            Ok(text) => Some((path.display().to_string(), text)),
            Err(e) => {
                eprintln!("piney: warning: {}: {e}", path.display());
                None
            }
        };
    }
    PROFILES
        .iter()
        .find(|(s, _)| s.eq_ignore_ascii_case(serial))
        .map(|(s, text)| (format!("profiles/{s}.toml"), text.to_string()))
}

/// The profile for `serial`, if piney has one (a bad one is a warning and none).
pub fn profile_for(serial: &str) -> Option<piney_engine::Profile> {
    let (file, text) = profile_source(serial)?;
    match piney_engine::Profile::parse(&text, &file) {
        Ok(p) => Some(p),
        Err(e) => {
            eprintln!("piney: warning: {e}");
            None
        }
    }
}

/// The region a serial's prefix names (SLUS: North America...).
pub fn region(serial: &str) -> &'static str {
    let prefix = serial.get(..4).unwrap_or("").to_ascii_uppercase();
    match prefix.as_str() {
        "SLUS" | "SCUS" => "NTSC-U (North America)",
        "SLES" | "SCES" | "SCED" | "SLED" => "PAL (Europe)",
        "SLPS" | "SLPM" | "SCPS" | "SCPM" | "PBPX" | "SLAJ" | "SCAJ" => "NTSC-J (Japan and Asia)",
        "SLKA" | "SCKA" => "NTSC-K (Korea)",
        _ => "unknown (not a Sony serial prefix)",
    }
}

/// PCSX2's CRC of an ELF, the number its game database and patches are keyed by: the XOR of
/// the file's little-endian 32-bit words (a tail shorter than a word is left out).
pub fn elf_crc(elf: &[u8]) -> u32 {
    elf.chunks_exact(4).fold(0, |crc, w| {
        crc ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]])
    })
}

/// `piney info DISC`.
pub fn info(path: &Path) -> ExitCode {
    match describe(path) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("piney: {e}");
            ExitCode::from(1)
        }
    }
}

fn describe(path: &Path) -> Result<String, piney_disc::DiscError> {
    use std::fmt::Write;
    let disc = piney_disc::open(path)?;
    let format = match disc.format() {
        ImageFormat::Iso => "ISO".to_string(),
        ImageFormat::Bin { sector_size } => format!("BIN ({sector_size}-byte sectors)"),
        ImageFormat::Cue { sector_size } => format!("CUE ({sector_size}-byte sectors)"),
        ImageFormat::Cso { version } => format!("CSO v{version}"),
        ImageFormat::Zso => "ZSO".to_string(),
        ImageFormat::Chd => "CHD".to_string(),
    };
    let media = match disc.kind() {
        MediaKind::Cd => "CD",
        MediaKind::Dvd => "DVD",
    };
    let sectors = disc.sector_count();
    let mut fs = disc.into_filesystem()?;
    let info = fs.boot_info()?;
    let elf = fs.read_file(&info.boot_file, piney_machine::disc::MAX_PROGRAM_BYTES)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "image: {} ({format}, {media}, {sectors} sectors)",
        path.display()
    );
    if let Some(l1) = fs.layer1_start() {
        let _ = writeln!(out, "layers: 2, layer 1 from sector {l1}");
    }
    let _ = writeln!(out, "volume: {}", fs.volume_id());
    let serial = info.serial.clone();
    let _ = writeln!(
        out,
        "serial: {}",
        serial
            .as_deref()
            .unwrap_or("none (the boot file's name is not a serial)")
    );
    let _ = writeln!(out, "boot: {} ({} bytes)", info.boot_path, elf.len());
    if let Some(v) = info.cnf.get("VER") {
        let _ = writeln!(out, "version: {v}");
    }
    let _ = writeln!(
        out,
        "video mode: {}",
        info.cnf.get("VMODE").unwrap_or("not given (NTSC)")
    );
    if let Some(s) = &serial {
        let _ = writeln!(out, "region: {}", region(s));
    }
    let _ = writeln!(out, "boot ELF CRC: {:08X}", elf_crc(&elf));
    let _ = writeln!(
        out,
        "profile: {}",
        match serial.as_deref().and_then(profile_source) {
            Some((file, _)) => file,
            None => format!("none for {}", serial.as_deref().unwrap_or("this disc")),
        }
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_by_prefix() {
        assert_eq!(region("SLUS-20267"), "NTSC-U (North America)");
        assert_eq!(region("SLES-52237"), "PAL (Europe)");
        assert_eq!(region("SLPS-25121"), "NTSC-J (Japan and Asia)");
        assert_eq!(region("PBPX-95205"), "NTSC-J (Japan and Asia)");
        assert!(region("PINY-00001").starts_with("unknown"));
    }

    #[test]
    fn crc_is_the_xor_of_the_words() {
        assert_eq!(elf_crc(&[1, 0, 0, 0, 2, 0, 0, 0, 0xff]), 3);
        assert_eq!(elf_crc(&[]), 0);
    }

    #[test]
    fn the_carried_profiles_parse() {
        for (serial, _) in PROFILES {
            let p = profile_for(serial).expect("parses");
            assert_eq!(p.serial.as_deref(), Some(*serial));
        }
    }
}
