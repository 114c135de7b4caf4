//! ioman's path syntax and iomanx's stat mode conversion (ps2sdk `ioman.c` find_iop_device,
//! `iomanX.c` parsefile, mode2modex and modex2mode), worked out by hand.

use piney_iop::Iop;
use piney_iop::kernel::ioman::{mode2modex, modex2mode, split_path};
use piney_iop::modules::load_native;

#[test]
fn paths_split_into_device_unit_and_rest() {
    assert_eq!(split_path(b"host0:foo/bar"), Some((&b"host"[..], 0, 6)));
    assert_eq!(split_path(b"cdrom0:\\A;1"), Some((&b"cdrom"[..], 0, 7)));
    assert_eq!(split_path(b"tty:"), Some((&b"tty"[..], 0, 4)));
    assert_eq!(split_path(b"  mc1:/x"), Some((&b"mc"[..], 1, 6)));
    assert_eq!(split_path(b"ramd12:"), Some((&b"ramd"[..], 12, 7)));
    assert_eq!(split_path(b"nodevice"), None);
    assert_eq!(split_path(b":x"), None);
    assert_eq!(split_path(b"\thost:x"), Some((&b"\thost"[..], 0, 6)));
    assert_eq!(split_path(&[b'a'; 40][..]), None);
    assert_eq!(split_path(b"d99999999999:").map(|p| p.1), Some(0x7fff_ffff));
}

#[test]
fn stat_modes_convert_as_iomanx_does() {
    // A regular file rw-: 0x10 | 4 | 2.
    assert_eq!(mode2modex(0x16), 0x2000 | 0o666);
    assert_eq!(mode2modex(0x27), 0x1000 | 0o777);
    assert_eq!(mode2modex(0x08), 0x4000);
    assert_eq!(modex2mode(0x2000 | 0o644), 0x10 | 4 | 2);
    assert_eq!(modex2mode(0x1000 | 0o100), 0x20 | 1);
}

/// A device without a unit is unit 0, so `rom:LIBSD` loads rom0's LIBSD (a homebrew game loads
/// it so); `rom1:` is another device's unit and is not rom0.
#[test]
fn rom_without_a_unit_is_rom0() {
    let (mut a, mut b, mut c) = (Iop::new(), Iop::new(), Iop::new());
    let rom0 = load_native(&mut a, "rom0:LIBSD");
    assert!(rom0.is_some_and(|id| id >= 0), "{rom0:?}");
    assert_eq!(load_native(&mut b, "rom:LIBSD"), rom0);
    assert_eq!(load_native(&mut c, "rom1:LIBSD"), None);
}
