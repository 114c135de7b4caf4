//! The IOP's memory as programs that inspect it read it: the module chain from 0x800, the
//! library chain, lc_internals_t, followed from raw IOP RAM exactly as ps2sdk's EE library slib
//! / smod (sbv_patches) reads them over SIF RDATA, and as iomanX's ioman_sbv.c walks them on
//! the IOP.

use piney_iop::Iop;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn w(iop: &Iop, a: u32) -> u32 {
    iop.bus.ram_u32(a)
}

fn h(iop: &Iop, a: u32) -> u16 {
    iop.bus.ram_u16(a)
}

fn name8(iop: &Iop, a: u32) -> String {
    let mut b = [0u8; 8];
    iop.bus.read_ram(a, &mut b);
    let n = b.iter().position(|&c| c == 0).unwrap_or(8);
    String::from_utf8_lossy(&b[..n]).into_owned()
}

/// ModuleInfo_t as smod reads it: (address, name, version, id, newflags, text_start, text_size).
#[derive(Debug, Clone)]
struct Info {
    at: u32,
    name: String,
    version: u16,
    flags: u16,
    id: u16,
    text: u32,
    text_size: u32,
    data_size: u32,
    bss_size: u32,
}

fn info(iop: &Iop, a: u32) -> Info {
    Info {
        at: a,
        name: iop.bus.ram_cstr(w(iop, a + 4), 64),
        version: h(iop, a + 8),
        flags: h(iop, a + 10),
        id: h(iop, a + 12),
        text: w(iop, a + 24),
        text_size: w(iop, a + 28),
        data_size: w(iop, a + 32),
        bss_size: w(iop, a + 36),
    }
}

/// smod_get_next_mod from 0x800 until `next` is 0.
fn module_chain(iop: &Iop) -> Vec<Info> {
    let mut v = Vec::new();
    let mut a = 0x800;
    while a != 0 {
        assert!(v.len() < 256, "the module chain loops");
        v.push(info(iop, a));
        a = w(iop, a);
    }
    v
}

/// slib_exp_lib_list: the (tail, head) of the library list, found as slib finds it; panics
/// where slib would give up.
fn slib_list(iop: &Iop) -> (u32, u32, u32) {
    let next_mod = w(iop, 0x800);
    let core = info(iop, next_mod);
    let core_end = core.text + core.text_size;
    let start = core_end - 512;
    let at = (0..512)
        .step_by(4)
        .map(|i| start + i)
        .find(|&a| w(iop, a) == 0x830 && name8(iop, a + 12) == "loadcore")
        .expect("slib finds LOADCORE's export table (prev 0x830, \"loadcore\") in its text's last 512 bytes");
    let f = w(iop, at + 20 + 4 * 3);
    let (i0, i1) = (w(iop, f), w(iop, f + 4));
    assert_eq!(i0 & 0xffff_0000, 0x3c02_0000, "lui v0, hi");
    assert_eq!(i1 & 0xffff_0000, 0x2442_0000, "addiu v0, v0, lo");
    let addr = ((i0 & 0xffff) << 16).wrapping_add(i1 as u16 as i16 as i32 as u32);
    (w(iop, addr), w(iop, addr + 4), addr)
}

/// slib_get_exp_lib's walk from the tail through prev: (address, name, version, exports).
fn library_chain(iop: &Iop, tail: u32) -> Vec<(u32, String, u16, Vec<u32>)> {
    let mut v = Vec::new();
    let mut a = tail;
    while a != 0 {
        assert!(v.len() < 256, "the library chain loops");
        let mut ex = Vec::new();
        while ex.len() < 256 && w(iop, a + 20 + 4 * ex.len() as u32) != 0 {
            ex.push(w(iop, a + 20 + 4 * ex.len() as u32));
        }
        v.push((a, name8(iop, a + 12), h(iop, a + 8), ex));
        a = w(iop, a);
    }
    v
}

#[test]
fn slib_finds_the_library_list_and_the_module_chain() {
    let iop = Iop::new();
    let chain = module_chain(&iop);
    assert_eq!(chain[0].at, 0x800);
    assert_eq!(
        (chain[0].name.as_str(), chain[0].id, chain[0].text),
        ("System_Memory_Manager", 1, 0x830)
    );
    assert_eq!((chain[1].name.as_str(), chain[1].id), ("Module_Manager", 2));
    for pair in chain.windows(2) {
        assert!(pair[0].at < pair[1].at, "address order: {pair:?}");
        let end = pair[0].text + pair[0].text_size + pair[0].data_size + pair[0].bss_size;
        assert!(end <= pair[1].at, "modules do not overlap: {pair:?}");
    }
    for m in &chain {
        assert_eq!(
            m.text,
            m.at + 0x30,
            "{}: info right before its text",
            m.name
        );
        assert_eq!(m.flags, 3, "{}: resident", m.name);
    }
    let names: Vec<&str> = chain.iter().map(|m| m.name.as_str()).collect();
    for n in [
        "Exception_Manager",
        "Interrupt_Manager",
        "ssbus_service",
        "dmacman",
        "Timer_Manager",
        "System_C_lib",
        "Heap_lib",
        "Multi_Thread_Manager",
        "Vblank_service",
        "IO/File_Manager",
        "IOX/File_Manager",
        "Moldule_File_loader",
        "Stdio",
        "IOP_SIF_manager",
        "IOP_SIF_rpc_interface",
        "secrman",
        "SyncEE",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }

    let (tail, head, lc) = slib_list(&iop);
    assert_eq!(head, 0x830, "the list's head is SYSMEM's export table");
    let libs = library_chain(&iop, tail);
    let last = libs.last().unwrap();
    assert_eq!((last.0, last.1.as_str()), (0x830, "sysmem"));
    assert_eq!(libs[libs.len() - 2].1, "loadcore");
    // sbv_patch_enable_lmb and sbv_patch_disable_prefix_check look modload up: 16 exports or
    // more.
    let modload = libs.iter().find(|l| l.1 == "modload").expect("modload");
    assert!(modload.3.len() >= 16);
    for name in [
        "thbase", "thsemap", "thevent", "thmsgbx", "thfpool", "thvpool", "intrman", "sysclib",
        "dmacman", "excepman", "ssbusc", "secrman", "eesync", "sifman", "sifcmd", "stdio",
        "heaplib", "timrman", "vblank", "ioman", "iomanx",
    ] {
        assert!(libs.iter().any(|l| l.1 == name), "library {name}");
    }
    // Each library's functions lie in its module's text.
    for (table, name, _, exports) in &libs {
        let m = chain
            .iter()
            .find(|m| *table >= m.text && *table < m.text + m.text_size)
            .unwrap_or_else(|| panic!("{name}'s table in a module's text"));
        for f in exports {
            assert!(
                *f >= m.text && *f < m.text + m.text_size,
                "{name}'s function {f:#x} in {}",
                m.name
            );
        }
    }
    // lc_internals_t: let_next, let_prev, mda_next, mda_prev, image_info, module_count,
    // module_index.
    assert_eq!(w(&iop, lc + 16), 0x800, "image_info");
    assert_eq!(w(&iop, lc + 20) as usize, iop.kernel.loadcore.modules.len());
    let max_id = iop
        .kernel
        .loadcore
        .modules
        .iter()
        .map(|m| m.id)
        .max()
        .unwrap();
    assert_eq!(
        w(&iop, lc + 24) as i32,
        max_id + 1,
        "module_index: the next id"
    );
    // The threads manager is one module with six libraries.
    let tm = chain
        .iter()
        .find(|m| m.name == "Multi_Thread_Manager")
        .unwrap();
    let in_tm = libs
        .iter()
        .filter(|l| l.0 >= tm.text && l.0 < tm.text + tm.text_size)
        .count();
    assert_eq!(in_tm, 6);
}

#[test]
fn a_loaded_module_joins_the_chain_and_leaves_it() {
    let mut iop = Iop::new();
    let image = std::fs::read(root().join("tests/iop/libexport.irx")).unwrap();
    let id = iop.load_and_start("libexport", &image, &[]);
    assert!(id > 0);
    assert!(iop.run_bare(piney_iop::IOP_CLOCK_HZ).unwrap());
    let chain = module_chain(&iop);
    let m = chain
        .iter()
        .find(|m| m.name == "libexport")
        .expect("in the chain");
    assert_eq!((m.id as i32, m.version), (id, 0x0101));
    assert_eq!(m.flags, 3, "resident");
    let rm = iop
        .kernel
        .loadcore
        .modules
        .iter()
        .find(|x| x.id == id)
        .unwrap();
    assert_eq!((m.text, m.at), (rm.text, rm.block));
    // Its library is the newest and its table starts with prev, the next newest.
    let (tail, _, _) = slib_list(&iop);
    let libs = library_chain(&iop, tail);
    assert_eq!(libs[0].1, "pinytest");
    assert!(libs[0].0 >= m.text && libs[0].0 < m.text + m.text_size + m.data_size);
    // Unloaded (piney's UnloadModule needs it removable; the kernel's own unload does it):
    // out of both chains.
    iop.unload(id);
    assert!(!module_chain(&iop).iter().any(|m| m.name == "libexport"));
    let (tail, _, _) = slib_list(&iop);
    assert!(!library_chain(&iop, tail).iter().any(|l| l.1 == "pinytest"));
}

#[test]
fn callers_are_the_import_tables_linked_to_a_library() {
    let mut iop = Iop::new();
    let image = std::fs::read(root().join("tests/iop/lcinfo.irx")).unwrap();
    let id = iop.load_module_image("lcinfo", &image);
    assert!(id > 0);
    let m = iop
        .kernel
        .loadcore
        .modules
        .iter()
        .find(|x| x.id == id)
        .unwrap()
        .clone();
    let (tail, _, _) = slib_list(&iop);
    let libs = library_chain(&iop, tail);
    let stdio = libs.iter().find(|l| l.1 == "stdio").unwrap();
    let mut t = w(&iop, stdio.0 + 4);
    let mut found = false;
    while t != 0 {
        assert_eq!(w(&iop, t), 0x41e0_0000, "an import table");
        found |= t >= m.text && t < m.text + m.size;
        t = w(&iop, t + 4);
    }
    assert!(found, "lcinfo's stdio imports are a caller of stdio");
    iop.unload(id);
    let mut t = w(&iop, stdio.0 + 4);
    while t != 0 {
        assert!(
            t < m.text || t >= m.text + m.size,
            "forgotten with its module"
        );
        t = w(&iop, t + 4);
    }
}

#[test]
fn a_newer_minor_version_takes_over_the_callers() {
    let mut iop = Iop::new();
    // Two export tables of "relib": 1.1 with function 0x20000 at index 4, then 1.2 with
    // 0x30000; an import table of relib 1.1 index 4 linked to the first moves to the second.
    let (old, new, imp) = (0x10_0000, 0x10_0100, 0x10_0200);
    for (t, minor, f) in [(old, 1u16, 0x2_0000u32), (new, 2, 0x3_0000)] {
        iop.bus.set_ram_u32(t, 0x41c0_0000);
        iop.bus.set_ram_u32(t + 4, 0);
        iop.bus.set_ram_u16(t + 8, 0x0100 | minor);
        iop.bus.set_ram_u16(t + 10, 0);
        iop.bus.write_ram(t + 12, b"relib\0\0\0");
        for i in 0..4 {
            iop.bus.set_ram_u32(t + 20 + 4 * i, 0x1_0000);
        }
        iop.bus.set_ram_u32(t + 36, f);
        iop.bus.set_ram_u32(t + 40, 0);
    }
    iop.bus.set_ram_u32(imp, 0x41e0_0000);
    iop.bus.set_ram_u32(imp + 4, 0);
    iop.bus.set_ram_u16(imp + 8, 0x0101);
    iop.bus.write_ram(imp + 12, b"relib\0\0\0");
    iop.bus.set_ram_u32(imp + 20, 0x03e0_0008);
    iop.bus.set_ram_u32(imp + 24, 0x2400_0004);
    iop.bus.set_ram_u32(imp + 28, 0);
    iop.bus.set_ram_u32(imp + 32, 0);
    assert_eq!(iop.register_library(old), 0);
    assert!(iop.link_imports(imp, 0x40).is_ok());
    assert_eq!(w(&iop, imp + 20), 0x0800_0000 | (0x2_0000 >> 2));
    assert_eq!(
        w(&iop, old + 4),
        imp,
        "the import table is the old one's caller"
    );
    assert_eq!(iop.register_library(new), 0);
    assert_eq!(w(&iop, imp + 20), 0x0800_0000 | (0x3_0000 >> 2), "relinked");
    assert_eq!((w(&iop, old + 4), w(&iop, new + 4)), (0, imp));
    assert_eq!(w(&iop, new), old, "the new table's prev is the old one");
    // The same table again is refused: its first word is no longer the magic.
    assert_eq!(iop.register_library(new), -214);
}

#[test]
fn the_first_user_module_and_free_memory_are_where_they_were() {
    // The kernel's image lives in the boot area piney always reserved: the first module lands
    // at the same address, with the same id, and free memory is unchanged but for CDVDFSV's
    // six servers (their server data and buffers, 0x2200 bytes at the top of memory).
    let mut iop = Iop::new();
    assert_eq!(iop.kernel.sysmem.total_free(), 0x1e_5d00 - 0x2200);
    assert_eq!(iop.kernel.sysmem.max_free(), 0x1e_5d00 - 0x2200);
    // The kernel heap follows the image's native slots (NATIVE_END 0x3800, with room for
    // rom modules loaded later).
    assert_eq!(iop.kernel.heap, 0x7900);
    let image = std::fs::read(root().join("tests/iop/compute.irx")).unwrap();
    let id = iop.load_module_image("compute", &image);
    let m = iop
        .kernel
        .loadcore
        .modules
        .iter()
        .find(|x| x.id == id)
        .unwrap();
    // 25: the boot modules with CDVDMAN's and CDVDFSV's (cdvd_driver, cdvd_ee_driver).
    assert_eq!((m.block, m.id), (0x0001_8000, 25));
}

#[test]
fn search_module_by_address_agrees_with_the_chain() {
    let iop = Iop::new();
    for m in module_chain(&iop) {
        for a in [m.text, m.text + m.text_size - 4] {
            let found = iop.kernel.loadcore.module_at(a).map(|x| x.id);
            assert_eq!(found, Some(m.id as i32), "{} at {a:#x}", m.name);
        }
    }
    assert!(iop.kernel.loadcore.module_at(0x20).is_none());
}
