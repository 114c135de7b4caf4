//! The kernel's image in IOP RAM: what a program that reads the IOP's memory finds there.
//!
//! piney's loadcore keeps its libraries and modules in Rust ([`super::loadcore::LoadCore`]), the
//! source of truth. This module keeps the guest-visible mirror of them in IOP RAM in the
//! console's layout, rewritten ([`sync`]) after every change, so that the EE's ps2sdk `slib` /
//! `smod` (sbv_patches, reading the IOP over SIF RDATA) and IOP modules (iomanX, mcserv, netfs,
//! thmon) walk consistent structures.
//!
//! The console's facts (ps2sdk's reconstructions of loadcore and sysmem, iop/system/loadcore and
//! iop/system/sysmem, and ee/sbv/src/slib.c, smod.c, which read them; Play!'s Iop_Loadcore as a
//! second look):
//! - Every module has a ModuleInfo_t (0x30 bytes: next, name, u16 version, u16 newflags, u16 id,
//!   u16 flags, entry, gp, text_start, text_size, data_size, bss_size, two unused words) right
//!   before its text. They form one chain through `next`, in address order, whose head is
//!   SYSMEM's at 0x800 (smod reads 0x800 as the head; loadcore's boot makes SYSMEM's info,
//!   `let_prev - 0x30`, its image_info). SYSMEM is module 1, LOADCORE module 2 and its info
//!   SYSMEM's `next`.
//! - A registered library is its export table with the magic word replaced by `prev` (the
//!   library registered before it) and the next word by `caller` (the import tables linked to
//!   it, through their own `next` words, newest first): `iop_library_t { prev, caller, u16
//!   version, u16 flags, name[8], exports[] }`. The oldest is SYSMEM's at 0x830 (prev 0), the
//!   next LOADCORE's, whose `prev` is therefore 0x830: slib finds LOADCORE's export table by that
//!   word and the name "loadcore" at +12 in the last 512 bytes of LOADCORE's text. Releasing a
//!   library gives the table its magic back. RegisterNonAutoLinkEntries sets flags bit 0, and
//!   imports do not link to such a library.
//! - loadcore's export 3, GetLoadcoreInternalData (GetLibraryEntryTable in older headers),
//!   returns lc_internals_t: let_next (the newest library: the list's tail), let_prev (the
//!   oldest: its head), mda_next, mda_prev, image_info (0x800), module_count, module_index (the
//!   next id), reboot_handlers, intr_suspend_tbl, `bootmodes[16]`, bootmodes_size. slib does not
//!   call it: it reads the function's first two instructions, `lui v0, hi` and `addiu v0, v0,
//!   lo`, and takes the address from them.
//! - The boot modules' names (their IRX_IDs): System_Memory_Manager, Module_Manager,
//!   Exception_Manager, Interrupt_Manager, ssbus_service, dmacman, Timer_Manager, System_C_lib,
//!   Heap_lib, Multi_Thread_Manager (thbase, thsemap, thevent, thmsgbx, thfpool, thvpool),
//!   Vblank_service, IO/File_Manager, Moldule_File_loader (sic), Stdio, IOP_SIF_manager,
//!   IOP_SIF_rpc_interface, secrman, SyncEE; ps2sdk's iomanX is IOX/File_Manager.
//!
//! piney's choices: the image starts at [`IMAGE_BASE`] (0x800) and ends before the kernel's
//! return points; each native boot module is laid out as ModuleInfo, export tables (so that
//! SYSMEM's lies at 0x830), its native function slots (8 bytes each, `jr $ra; nop` for a
//! reader: the CPU never runs them, the native function runs when the pc gets there), its name,
//! and its data (LOADCORE's lc_internals_t, EXCEPMAN's default handler). The kernel's own
//! natives (the vblank handlers, the loader thread, the DMA and SIF interrupt handlers, the
//! timer interrupt) lie in the text of the module they belong to. A module's version is its
//! first library's. Native modules that come later (a native server, a rom0 module piney
//! answers) get their ModuleInfo and name from a pool in the kernel's boot area (no sysmem
//! block, so free memory does not change). module_count counts every module piney knows;
//! reboot_handlers, intr_suspend_tbl and the boot modes are 0 (no boot mode is registered:
//! QueryBootMode answers none). The import tables' `next` words and the export tables' `caller`
//! words are piney's record of who linked what; loadcore's pending-import list (mda) is empty.

use super::loadcore::{EXPORT_MAGIC, IMPORT_MAGIC, Library, ModState};
use super::{Iop, IopError, LibDef, NATIVE_BASE, NATIVE_END, Native, Ret, kerr};

/// Where the kernel's image starts: SYSMEM's ModuleInfo_t.
pub const IMAGE_BASE: u32 = 0x800;
/// The size of a ModuleInfo_t.
pub const MODINFO_SIZE: u32 = 0x30;
/// The size of lc_internals_t (nine words, `bootmodes[16]`, bootmodes_size).
pub const LC_INTERNALS_SIZE: u32 = 4 * (9 + 16 + 1);
/// `jr $ra`.
const JR_RA: u32 = 0x03e0_0008;
/// ModuleInfo_t and name slots for native modules added after boot.
const POOL_ENTRIES: u32 = 32;
/// One pool entry: the ModuleInfo_t and 32 bytes of name (its "text").
const POOL_ENTRY: u32 = MODINFO_SIZE + 0x20;
/// The most stubs one import table may have (a guard against a table without its end).
const MAX_STUBS: u32 = 1024;

/// The guest-visible state's addresses.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct ImageState {
    /// lc_internals_t (0 until boot built the image).
    pub internals: u32,
    /// Each boot module's data, by module name.
    #[serde(with = "crate::state::static_names")]
    pub data: Vec<(&'static str, u32)>,
    pool: u32,
    pool_end: u32,
    /// Where the next native module's text may go (after boot's).
    next: u32,
}

impl ImageState {
    /// The data area of boot module `name`.
    pub fn data_of(&self, name: &str) -> Option<u32> {
        self.data.iter().find(|d| d.0 == name).map(|d| d.1)
    }
}

/// A native boot module: its name, the libraries it exports (by name; a library piney does not
/// have is left out, and a module with none of them is too), the kernel's own natives in its
/// text (indices of loadcore's internal table), its data and bss sizes.
pub(crate) struct BootModule {
    pub(crate) name: &'static str,
    libs: &'static [&'static str],
    internal: &'static [u16],
    data: u32,
    bss: u32,
}

/// The native boot modules, in the console's boot order (its IOPBTCONF).
pub(crate) const BOOT_MODULES: &[BootModule] = &[
    BootModule {
        name: "System_Memory_Manager",
        libs: &["sysmem"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "Module_Manager",
        libs: &["loadcore"],
        internal: &[],
        data: LC_INTERNALS_SIZE,
        bss: 0,
    },
    BootModule {
        name: "Exception_Manager",
        libs: &["excepman"],
        internal: &[],
        data: super::bootmods::EXCEPMAN_DATA,
        bss: 0,
    },
    BootModule {
        name: "Interrupt_Manager",
        libs: &["intrman"],
        internal: &[3],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "ssbus_service",
        libs: &["ssbusc"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "dmacman",
        libs: &["dmacman"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "Timer_Manager",
        libs: &["timrman"],
        internal: &[5],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "System_C_lib",
        libs: &["sysclib"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "Heap_lib",
        libs: &["heaplib"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "Multi_Thread_Manager",
        libs: &[
            "thbase", "thsemap", "thevent", "thmsgbx", "thfpool", "thvpool",
        ],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "Vblank_service",
        libs: &["vblank"],
        internal: &[0, 1],
        data: 0,
        bss: 0,
    },
    // ioman's device table and file table follow its data on the console (iomanX's
    // ioman_sbv.c copies and clears them at text_start + text_size + data_size + 0x10 and
    // + 0x50: 16 pointers, 16 files of 20 bytes): its bss, zero here.
    BootModule {
        name: "IO/File_Manager",
        libs: &["ioman"],
        internal: &[],
        data: 0,
        bss: 0x50 + 16 * 20,
    },
    // iomanX (ps2sdk's, from an IOPRP image on a console) is a module of its own.
    BootModule {
        name: "IOX/File_Manager",
        libs: &["iomanx"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "Moldule_File_loader",
        libs: &["modload"],
        internal: &[2],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "Stdio",
        libs: &["stdio"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "IOP_SIF_manager",
        libs: &["sifman"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "IOP_SIF_rpc_interface",
        libs: &["sifcmd"],
        internal: &[4],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "secrman",
        libs: &["secrman"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "SyncEE",
        libs: &["eesync"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    // CDVDMAN and CDVDFSV (after LOADFILE in the console's list; here after the others, so
    // that the modules before them keep their ids).
    BootModule {
        name: "cdvd_driver",
        libs: &["cdvdman"],
        internal: &[],
        data: 0,
        bss: 0,
    },
    BootModule {
        name: "cdvd_ee_driver",
        libs: &["cdvdfsv"],
        internal: &[],
        data: 0,
        bss: 0,
    },
];

/// A slot of the native area that holds no function (a ModuleInfo, an export table, data).
const HOLE: Native = Native {
    lib: "",
    index: 0,
    name: "",
    func: None,
};

/// The name of the export entries that share one slot (the first's) in the kernel's image.
pub const RETZERO: &str = "_retzero";

/// The number of export slots of `lib` (at least the four standard ones).
fn slot_count(lib: &LibDef) -> u32 {
    lib.funcs
        .iter()
        .map(|f| f.0 as u32 + 1)
        .max()
        .unwrap_or(0)
        .max(4)
}

/// One module of the image: name, libraries, internal natives, data, bss.
type Plan = (&'static str, Vec<&'static LibDef>, Vec<u16>, u32, u32);

/// Build the image at boot: every native library's function slots, export table and module
/// (registered with loadcore in the console's order), `internal`'s natives in their modules'
/// text, lc_internals_t, and the pool for later native modules' infos.
pub fn build(iop: &mut Iop, internal: &'static LibDef, libs: &[&'static LibDef]) {
    iop.kernel.natives = vec![HOLE; ((NATIVE_END - NATIVE_BASE) / 8) as usize];
    let mut plan: Vec<Plan> = Vec::new();
    let mut claimed: Vec<&str> = Vec::new();
    // The kernel's own natives that no boot module names go with loadcore's.
    let placed: Vec<u16> = BOOT_MODULES
        .iter()
        .flat_map(|b| b.internal.iter().copied())
        .collect();
    let leftover: Vec<u16> = internal
        .funcs
        .iter()
        .map(|f| f.0)
        .filter(|i| !placed.contains(i))
        .collect();
    for bm in BOOT_MODULES {
        let l: Vec<&'static LibDef> = bm
            .libs
            .iter()
            .filter_map(|n| libs.iter().find(|d| d.name == *n).copied())
            .collect();
        if l.is_empty() {
            continue;
        }
        claimed.extend(l.iter().map(|d| d.name));
        let mut internals = bm.internal.to_vec();
        if bm.name == "Module_Manager" {
            internals.extend(&leftover);
        }
        plan.push((bm.name, l, internals, bm.data, bm.bss));
    }
    // A library no boot module names is a module of its own, after them.
    for &l in libs {
        if !claimed.contains(&l.name) {
            plan.push((l.name, vec![l], Vec::new(), 0, 0));
        }
    }
    let mut at = IMAGE_BASE;
    for (name, mlibs, internals, data, bss) in plan {
        at = at.next_multiple_of(16);
        at = place_module(iop, at, name, &mlibs, internal, &internals, data, bss);
    }
    iop.kernel.loadcore.image.next = at;
    iop.kernel.loadcore.image.internals = iop
        .kernel
        .loadcore
        .image
        .data_of("Module_Manager")
        .unwrap_or(0);
    // What slib reads at GetLoadcoreInternalData: `lui v0, hi; addiu v0, v0, lo` (the next
    // slot, FlushIcache's, reads `jr $ra; nop`).
    let lc = iop.kernel.loadcore.image.internals;
    if let Some(f) = iop.native_address("loadcore", 3) {
        iop.bus
            .set_ram_u32(f, 0x3c02_0000 | (lc.wrapping_add(0x8000) >> 16));
        iop.bus
            .set_ram_u32(f.wrapping_add(4), 0x2442_0000 | (lc & 0xffff));
    }
    let pool = iop.arena_alloc(POOL_ENTRIES * POOL_ENTRY);
    let st = &mut iop.kernel.loadcore.image;
    st.pool = pool;
    st.pool_end = pool + POOL_ENTRIES * POOL_ENTRY;
    sync(iop);
}

/// A native rom module loaded after boot (rom0:LIBSD): its module entry and library laid out
/// after the kernel's, registered as a loaded module's are. Its id.
pub fn place_late(
    iop: &mut Iop,
    name: &'static str,
    lib: &'static LibDef,
    internal: &'static LibDef,
) -> i32 {
    let at = iop.kernel.loadcore.image.next.next_multiple_of(16);
    let internals: Vec<u16> = internal.funcs.iter().map(|f| f.0).collect();
    let end = place_module(iop, at, name, &[lib], internal, &internals, 0, 0);
    iop.kernel.loadcore.image.next = end;
    // Loaded, not yet started: the start that follows (LoadStartModule, SifLoadModule) makes
    // it resident with RESIDENT_END (0), as the console's module's entry answers once it has
    // registered its library; a second copy's start answers 1 (the loader's native path).
    let id = iop
        .kernel
        .loadcore
        .modules
        .iter_mut()
        .rev()
        .find(|m| m.name == name)
        .map_or(0, |m| {
            m.state = ModState::Loaded;
            m.id
        });
    sync(iop);
    id
}

/// Lay out one module at `info`; returns where the next may start.
#[allow(clippy::too_many_arguments)] // One call site, the plan's fields.
fn place_module(
    iop: &mut Iop,
    info: u32,
    name: &'static str,
    libs: &[&'static LibDef],
    internal: &'static LibDef,
    internals: &[u16],
    data: u32,
    bss: u32,
) -> u32 {
    let text = info + MODINFO_SIZE;
    let mut cur = text;
    let mut tables = Vec::with_capacity(libs.len());
    for l in libs {
        tables.push(cur);
        cur += 20 + 4 * (slot_count(l) + 1);
    }
    cur = cur.next_multiple_of(8);
    for &i in internals {
        place_slot(iop, internal, i, cur);
        cur += 8;
    }
    let mut entry = 0;
    for (l, &table) in libs.iter().zip(&tables) {
        let mut fptrs = Vec::new();
        // A library's `_retzero` entries are one function, as a module's export table points
        // them all at its one `_retzero` (cdvdman has 130 of them): one slot, the first's. (A
        // stub linked to one of them and relinked to a newer library of the name then asks for
        // the first `_retzero`'s index.)
        let mut retzero = None;
        for index in 0..slot_count(l) as u16 {
            let shared = l.funcs.iter().any(|f| f.0 == index && f.1 == RETZERO);
            match (shared, retzero) {
                (true, Some(at)) => {
                    iop.kernel.native_addr.insert((l.name, index), at);
                    fptrs.push(at);
                    continue;
                }
                (true, None) => retzero = Some(cur),
                _ => {}
            }
            place_slot(iop, l, index, cur);
            fptrs.push(cur);
            cur += 8;
        }
        if entry == 0 {
            // Export 0 is a module's entry (_start).
            entry = fptrs[0];
        }
        // The table's fixed part; prev and caller are [`sync`]'s.
        iop.bus.set_ram_u16(table.wrapping_add(8), l.version);
        iop.bus.set_ram_u16(table.wrapping_add(10), 0);
        let mut n = [0u8; 8];
        let b = l.name.as_bytes();
        n[..b.len().min(8)].copy_from_slice(&b[..b.len().min(8)]);
        iop.bus.write_ram(table.wrapping_add(12), &n);
        for (i, f) in fptrs.iter().enumerate() {
            iop.bus.set_ram_u32(table + 20 + 4 * i as u32, *f);
        }
        iop.bus.set_ram_u32(table + 20 + 4 * fptrs.len() as u32, 0);
        iop.kernel.loadcore.libraries.push(Library {
            name: n,
            version: l.version,
            table,
            fptrs,
            callers: Vec::new(),
            auto_link: true,
        });
    }
    let name_at = cur;
    let mut nb = name.as_bytes().to_vec();
    nb.push(0);
    iop.bus.write_ram(name_at, &nb);
    cur = (cur + nb.len() as u32).next_multiple_of(4);
    let text_size = cur - text;
    let data_at = cur;
    let end = cur + data + bss;
    assert!(end <= NATIVE_END, "the kernel's image is full");
    for a in (data_at..end).step_by(4) {
        iop.bus.set_ram_u32(a, 0);
    }
    let version = libs.first().map_or(0x0101, |l| l.version);
    let id = iop.add_module(name, version, 0, 0, ModState::Resident);
    if let Some(m) = iop.module_mut(id) {
        m.info = info;
        m.kernel_text = text;
        m.kernel_size = end - text;
        m.entry = entry;
        m.text_size = text_size;
        m.data_size = data;
        m.bss_size = bss;
    }
    write_info(
        iop,
        info,
        name_at,
        version,
        id,
        entry,
        text,
        [text_size, data, bss],
    );
    iop.kernel.loadcore.image.data.push((name, data_at));
    end
}

/// A native function's slot at `addr`.
fn place_slot(iop: &mut Iop, lib: &'static LibDef, index: u16, addr: u32) {
    let slot = ((addr - NATIVE_BASE) / 8) as usize;
    let f = lib.funcs.iter().find(|f| f.0 == index);
    iop.kernel.natives[slot] = Native {
        lib: lib.name,
        index,
        name: f.map_or("", |f| f.1),
        func: f.map(|f| f.2),
    };
    iop.kernel.native_addr.insert((lib.name, index), addr);
    // What a reader of the slot finds: `jr $ra; nop`.
    iop.bus.set_ram_u32(addr, JR_RA);
    iop.bus.set_ram_u32(addr.wrapping_add(4), 0);
}

/// A ModuleInfo_t's fixed fields (next and newflags are [`sync`]'s).
#[allow(clippy::too_many_arguments)] // The structure's fields.
fn write_info(
    iop: &mut Iop,
    info: u32,
    name: u32,
    version: u16,
    id: i32,
    entry: u32,
    text: u32,
    sizes: [u32; 3],
) {
    iop.bus.set_ram_u32(info, 0);
    iop.bus.set_ram_u32(info.wrapping_add(4), name);
    iop.bus.set_ram_u16(info.wrapping_add(8), version);
    iop.bus.set_ram_u16(info.wrapping_add(10), 0);
    iop.bus.set_ram_u16(info.wrapping_add(12), id as u16);
    iop.bus.set_ram_u16(info.wrapping_add(14), 0);
    for (i, w) in [entry, 0, text, sizes[0], sizes[1], sizes[2], 0, 0]
        .iter()
        .enumerate()
    {
        iop.bus.set_ram_u32(info + 16 + 4 * i as u32, *w);
    }
}

/// Module `id`, native and without code (a native server, a rom0 module piney answers), added
/// after boot: its ModuleInfo_t and name from the pool, its "text" the name.
pub fn native_module_info(iop: &mut Iop, id: i32) {
    let st = &mut iop.kernel.loadcore.image;
    if st.pool == 0 {
        return;
    }
    if st.pool + POOL_ENTRY > st.pool_end {
        iop.log_once(
            "modinfo-pool",
            "more native modules than the kernel's image has ModuleInfo_t for: the later ones are not in the module chain",
        );
        return;
    }
    let info = st.pool;
    st.pool += POOL_ENTRY;
    let Some(m) = iop.module_mut(id) else {
        return;
    };
    m.info = info;
    m.kernel_text = info + MODINFO_SIZE;
    m.kernel_size = POOL_ENTRY - MODINFO_SIZE;
    let (version, mut name) = (m.version, m.name.as_bytes().to_vec());
    name.truncate(POOL_ENTRY as usize - MODINFO_SIZE as usize - 1);
    name.resize(POOL_ENTRY as usize - MODINFO_SIZE as usize, 0);
    iop.bus.write_ram(info.wrapping_add(MODINFO_SIZE), &name);
    let text = info + MODINFO_SIZE;
    write_info(
        iop,
        info,
        text,
        version,
        id,
        0,
        text,
        [POOL_ENTRY - MODINFO_SIZE, 0, 0],
    );
    sync(iop);
}

/// A module's newflags as the guest sees them (ReferModuleStatus's flags too).
pub fn module_flags(state: ModState) -> u16 {
    match state {
        ModState::Loaded => 1,
        ModState::Starting => 2,
        ModState::Resident => 3,
        ModState::Removable => 0x13,
        // modload's newflags: 6 stopped (0x10 removable kept).
        ModState::Stopping => 0x14,
        ModState::Stopped => 0x16,
    }
}

/// Rewrite the guest-visible chains from piney's registry: every library's prev and caller
/// words and its callers' next words, every ModuleInfo's next and newflags, lc_internals_t.
pub fn sync(iop: &mut Iop) {
    let lc = &iop.kernel.loadcore;
    let mut words: Vec<(u32, u32)> = Vec::new();
    let mut halves: Vec<(u32, u16)> = Vec::new();
    let mut prev = 0;
    for l in &lc.libraries {
        words.push((l.table, prev));
        words.push((
            l.table.wrapping_add(4),
            l.callers.last().copied().unwrap_or(0),
        ));
        for (i, &c) in l.callers.iter().enumerate() {
            let older = if i == 0 { 0 } else { l.callers[i - 1] };
            words.push((c.wrapping_add(4), older));
        }
        prev = l.table;
    }
    let mut infos: Vec<(u32, u16)> = lc
        .modules
        .iter()
        .filter(|m| m.info != 0)
        .map(|m| (m.info, module_flags(m.state)))
        .collect();
    infos.sort_unstable();
    for (i, &(info, flags)) in infos.iter().enumerate() {
        words.push((info, infos.get(i + 1).map_or(0, |n| n.0)));
        halves.push((info + 10, flags));
    }
    let internals = lc.image.internals;
    if internals != 0 {
        let tail = lc.libraries.last().map_or(0, |l| l.table);
        let head = lc.libraries.first().map_or(0, |l| l.table);
        let fields = [
            tail,
            head,
            0,
            0,
            infos.first().map_or(0, |i| i.0),
            lc.modules.len() as u32,
            (lc.next_id + 1) as u32,
            0,
            0,
        ];
        for (i, w) in fields.iter().enumerate() {
            words.push((internals + 4 * i as u32, *w));
        }
    }
    for (a, w) in words {
        iop.bus.set_ram_u32(a, w);
    }
    for (a, h) in halves {
        iop.bus.set_ram_u16(a, h);
    }
}

// ---- linking ----

/// The export index a linked native stub's trap word stands for.
fn native_stub_index(iop: &Iop, w1: u32) -> Option<u32> {
    if w1 & 0xfc00_003f != 0x0c {
        return None;
    }
    let code = (w1 >> 6) & 0xf_ffff;
    if code & super::STUB_TRAP_MASK != super::STUB_TRAP {
        return None;
    }
    let slot = (code & !super::STUB_TRAP_MASK) as usize;
    iop.kernel
        .natives
        .get(slot)
        .filter(|n| !n.lib.is_empty())
        .map(|n| n.index as u32)
}

/// Link the stubs of the import table at `imp` (ending before `end`) to library `lib` (an
/// index into loadcore's list), as loadcore links a client: each stub's first word becomes `j
/// function`, or `jr $ra` with piney's trap in the delay slot for a native function. Returns
/// the address after the table's stubs, or the first index that cannot be linked (with no
/// library, the first stub's).
pub fn link_table(iop: &mut Iop, imp: u32, end: u32, lib: Option<usize>) -> Result<u32, u32> {
    let fptrs = lib.map(|i| iop.kernel.loadcore.libraries[i].fptrs.clone());
    let mut s = imp.wrapping_add(20);
    let limit = s.saturating_add(8 * MAX_STUBS).min(end);
    while s.checked_add(8).is_some_and(|e| e <= limit) {
        let (w0, w1) = (iop.bus.ram_u32(s), iop.bus.ram_u32(s.wrapping_add(4)));
        if w0 == 0 && w1 == 0 {
            break;
        }
        // A stub's second word is `addiu $zero, $zero, index` (opcode 9), or piney's trap
        // once linked to a native function (its code holds the slot).
        let index = if w1 >> 26 == 9 {
            w1 & 0xffff
        } else if let Some(i) = native_stub_index(iop, w1) {
            i
        } else {
            break;
        };
        let Some(fptrs) = &fptrs else {
            return Err(index);
        };
        let Some(&f) = fptrs.get(index as usize) else {
            return Err(index);
        };
        if (NATIVE_BASE..NATIVE_END).contains(&f) {
            // A native function: `jr $ra` with the kernel's trap in the delay slot.
            let slot = (f - NATIVE_BASE) / 8;
            iop.bus.set_ram_u32(s, JR_RA);
            iop.bus
                .set_ram_u32(s.wrapping_add(4), ((super::STUB_TRAP | slot) << 6) | 0x0c);
        } else {
            iop.bus
                .set_ram_u32(s, 0x0800_0000 | ((f >> 2) & 0x03ff_ffff));
            iop.bus.set_ram_u32(s.wrapping_add(4), 0x2400_0000 | index);
        }
        s += 8;
    }
    if let Some(i) = lib {
        let callers = &mut iop.kernel.loadcore.libraries[i].callers;
        if !callers.contains(&imp) {
            callers.push(imp);
        }
    }
    Ok(s)
}

/// The library an import of `name`, major version `version >> 8`, links to: the newest that
/// imports may link to (the console's rule: the minor version is not compared).
pub fn find_library(iop: &Iop, name: &[u8; 8], version: u16) -> Option<usize> {
    iop.kernel
        .loadcore
        .libraries
        .iter()
        .rposition(|l| l.auto_link && l.name == *name && l.version >> 8 == version >> 8)
}

/// Forget the import tables in `[lo, hi)` (their module is gone, or its link failed).
pub fn forget_callers(iop: &mut Iop, lo: u32, hi: u32) {
    for l in iop.kernel.loadcore.libraries.iter_mut() {
        l.callers.retain(|&c| c < lo || c >= hi);
    }
}

/// A library was registered (the newest, at index `new`): the import tables linked to an older
/// one of the same name and major version (a lower minor) move to it, as the console's
/// RegisterLibraryEntries relinks them.
pub fn relink_to_newer(iop: &mut Iop, new: usize) {
    let (name, version) = {
        let l = &iop.kernel.loadcore.libraries[new];
        (l.name, l.version)
    };
    let mut moved = Vec::new();
    for (i, l) in iop.kernel.loadcore.libraries.iter_mut().enumerate() {
        if i != new && l.name == name && l.version >> 8 == version >> 8 {
            moved.append(&mut l.callers);
        }
    }
    for imp in moved {
        // A stub past the new table's end stays linked to the old function.
        let _ = link_table(iop, imp, crate::kernel::sysmem::MEM_SIZE, Some(new));
    }
}

/// Give a released library's table its magic back (and an empty caller word).
pub fn restore_magic(iop: &mut Iop, table: u32) {
    iop.bus.set_ram_u32(table, EXPORT_MAGIC);
    iop.bus.set_ram_u32(table.wrapping_add(4), 0);
}

// ---- loadcore's exports that work on the image ----

/// GetLoadcoreInternalData (export 3): lc_internals_t.
pub fn get_loadcore_internal_data(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.kernel.loadcore.image.internals))
}

/// UnLinkLibraryEntries(addr, size) (export 9): the import tables in the range are unlinked,
/// their stubs `jr $ra` again (loadcore's cleanStub), and any library registered from the
/// range is released.
pub fn unlink_library_entries(iop: &mut Iop) -> Result<Ret, IopError> {
    let (addr, size) = (iop.arg(0) & 0x1f_ffff, iop.arg(1));
    let end = addr.saturating_add(size & !3);
    let mut tables = Vec::new();
    for l in iop.kernel.loadcore.libraries.iter_mut() {
        tables.extend(l.callers.iter().copied().filter(|&c| c >= addr && c < end));
        l.callers.retain(|&c| c < addr || c >= end);
    }
    for t in tables {
        let mut s = t.wrapping_add(20);
        for _ in 0..MAX_STUBS {
            let (w0, w1) = (iop.bus.ram_u32(s), iop.bus.ram_u32(s.wrapping_add(4)));
            if w0 == 0 && w1 == 0 {
                break;
            }
            if let Some(i) = native_stub_index(iop, w1) {
                iop.bus.set_ram_u32(s.wrapping_add(4), 0x2400_0000 | i);
            }
            iop.bus.set_ram_u32(s, JR_RA);
            s = s.wrapping_add(8);
        }
    }
    let released: Vec<u32> = iop
        .kernel
        .loadcore
        .libraries
        .iter()
        .filter(|l| l.table >= addr && l.table < end)
        .map(|l| l.table)
        .collect();
    iop.kernel
        .loadcore
        .libraries
        .retain(|l| l.table < addr || l.table >= end);
    for t in released {
        restore_magic(iop, t);
    }
    sync(iop);
    Ok(Ret::V(kerr::OK as u32))
}

/// RegisterNonAutoLinkEntries(exports) (export 10): registered without the version check and
/// marked (flags bit 0) so that no import links to it; QueryLibraryEntryTable finds it.
pub fn register_non_auto_link(iop: &mut Iop) -> Result<Ret, IopError> {
    let t = iop.arg(0);
    if t == 0 || iop.bus.ram_u32(t) != EXPORT_MAGIC {
        return Ok(Ret::V(kerr::ILLEGAL_LIBRARY as u32));
    }
    let version = iop.bus.ram_u16(t.wrapping_add(8));
    let mut name = [0u8; 8];
    iop.bus.read_ram(t.wrapping_add(12), &mut name);
    let fptrs = export_pointers(iop, t);
    let flags = iop.bus.ram_u16(t.wrapping_add(10));
    iop.bus.set_ram_u16(t.wrapping_add(10), flags | 1);
    iop.kernel.loadcore.libraries.push(Library {
        name,
        version,
        table: t,
        fptrs,
        callers: Vec::new(),
        auto_link: false,
    });
    sync(iop);
    Ok(Ret::V(kerr::OK as u32))
}

/// The function pointers of the export table at `t` (up to its terminating 0).
pub fn export_pointers(iop: &Iop, t: u32) -> Vec<u32> {
    let mut fptrs = Vec::new();
    let mut a = t.wrapping_add(20);
    while fptrs.len() < MAX_STUBS as usize {
        let f = iop.bus.ram_u32(a);
        if f == 0 {
            break;
        }
        fptrs.push(f);
        a = a.wrapping_add(4);
    }
    fptrs
}

/// Whether `addr` is an import table's magic word (a quick test for [`link_table`]'s callers).
pub fn is_import_table(iop: &Iop, addr: u32) -> bool {
    iop.bus.ram_u32(addr) == IMPORT_MAGIC
}
