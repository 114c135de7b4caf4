//! LOADFILE's ELF_LOAD through the binary (tests/guest/iop_loadelf.c): ELFs written here, in the
//! program's folder (its `host:`), loaded into EE memory by the IOP. A segment's bytes arrive
//! where its header says, the answer carries the entry; a segment in the EE kernel's memory and
//! a missing file give the console's error codes.

mod piney_support;

use std::path::Path;

/// A minimal EE executable: one PT_LOAD segment of `data` at `vaddr`, entry `vaddr`.
fn elf(vaddr: u32, data: &[u8]) -> Vec<u8> {
    let mut e = vec![0u8; 52 + 32];
    e[0..6].copy_from_slice(&[0x7f, b'E', b'L', b'F', 1, 1]);
    e[6] = 1; // EV_CURRENT
    e[16..18].copy_from_slice(&2u16.to_le_bytes()); // ET_EXEC
    e[18..20].copy_from_slice(&8u16.to_le_bytes()); // EM_MIPS
    e[20..24].copy_from_slice(&1u32.to_le_bytes());
    e[24..28].copy_from_slice(&vaddr.to_le_bytes()); // e_entry
    e[28..32].copy_from_slice(&52u32.to_le_bytes()); // e_phoff
    e[40..42].copy_from_slice(&52u16.to_le_bytes()); // e_ehsize
    e[42..44].copy_from_slice(&32u16.to_le_bytes()); // e_phentsize
    e[44..46].copy_from_slice(&1u16.to_le_bytes()); // e_phnum
    let ph = 52;
    let put = |e: &mut Vec<u8>, at: usize, v: u32| e[at..at + 4].copy_from_slice(&v.to_le_bytes());
    put(&mut e, ph, 1); // PT_LOAD
    put(&mut e, ph + 4, 84); // p_offset
    put(&mut e, ph + 8, vaddr);
    put(&mut e, ph + 12, vaddr);
    put(&mut e, ph + 16, data.len() as u32); // p_filesz
    put(&mut e, ph + 20, data.len() as u32); // p_memsz
    put(&mut e, ph + 24, 7);
    e.extend_from_slice(data);
    e
}

#[test]
fn the_iop_loads_an_ee_program_into_ee_memory() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("loadfile-elf");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let guest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/guest/iop_loadelf.elf");
    std::fs::copy(&guest, dir.join("iop_loadelf.elf")).unwrap();
    std::fs::write(
        dir.join("payload.elf"),
        elf(0x0180_0000, b"PINEY-ELF-LOADED"),
    )
    .unwrap();
    std::fs::write(dir.join("low.elf"), elf(0x0004_0000, b"kernel memory!!!")).unwrap();
    let o = piney_support::command()
        .args(["run", "--headless", "--seconds", "5"])
        .arg(dir.join("iop_loadelf.elf"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "host:payload.elf: 01800000 00000000 00000000 0\n\
         at 0x01800000:PINEY-ELF-LOADED\n\
         host:low.elf: 00000000 00000000 00000000 -201\n\
         host:missing.elf: 00000000 00000000 00000000 -203\n"
    );
}
