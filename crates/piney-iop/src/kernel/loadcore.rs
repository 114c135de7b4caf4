//! loadcore and modload: libraries, module loading and module start, and the kernel's boot.
//!
//! Libraries: RegisterLibraryEntries takes an export table in guest RAM (magic 0x41c00000, next,
//! u16 version, u16 flags, `name[8]`, function pointers ending with 0) and makes it available to
//! later imports. A module's import tables (magic 0x41e00000, next, version, flags, `name[8]`, then
//! stub pairs `jr $ra; addiu $zero, $zero, index` ending with two zero words) are found by
//! scanning its text, and each stub's first word becomes `j function` of the newest library
//! with the same name and major version (the console's rule; the minor version is not checked).
//! An import of a library nobody registered, or of an index past the end of its table, fails the
//! load with KE_LINKERR (-200) and one line on stderr naming module, library and index. A newer
//! minor version of a library takes over the import tables linked to the older one (they are
//! relinked), as the console's RegisterLibraryEntries does; a library registered with
//! RegisterNonAutoLinkEntries is not linked to.
//!
//! piney's lists of libraries and modules are the source of truth; [`super::image`] keeps their
//! guest-visible mirror in IOP RAM (the module chain from 0x800, the library chain, the
//! tables' caller words, lc_internals_t) after every change.
//!
//! Modules: the image is placed in an ALLOC_FIRST block 0x30 bytes larger than the module, the
//! module's ModuleInfo_t in those 0x30 bytes and its text right after (the console's layout).
//! Modules start on the module loader thread at priority 8, as the console's modload does:
//! `entry(argc, argv, 0, module_info)`, `argv[0]` being the path it was loaded by; the start
//! result's low two bits say whether it stays resident (0), is unloaded at once (1), or stays
//! and may be unloaded (2). Callers of LoadStartModule wait until the start returned.

use super::sysmem::{self, Mode};
use super::{Iop, IopError, LibDef, Ret, Wait, kerr, ret, thread::TH_C};
use crate::irx;

/// Import table magic.
pub const IMPORT_MAGIC: u32 = 0x41e0_0000;
/// Export table magic.
pub const EXPORT_MAGIC: u32 = 0x41c0_0000;
/// `jr $ra`: an unlinked stub's first word.
const JR_RA: u32 = 0x03e0_0008;
/// The size of the ModuleInfo_t placed before a module's text.
const MODINFO_SIZE: u32 = 0x30;
/// The module loader thread's priority.
pub const LOADER_PRIORITY: u32 = 8;
/// Native wait id: a thread waits for the loader to finish its request.
pub const WAIT_LOADER: u32 = 3;
/// Native wait id: the loader thread waits for a request.
pub const WAIT_LOADER_IDLE: u32 = 4;

/// A registered library.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Library {
    /// The name (8 bytes, NUL-padded).
    pub name: [u8; 8],
    /// major << 8 | minor.
    pub version: u16,
    /// The export table's address in RAM.
    pub table: u32,
    /// The function pointers.
    pub fptrs: Vec<u32>,
    /// The import tables linked to it, oldest first (the guest sees them as the table's
    /// `caller` chain, newest first).
    pub callers: Vec<u32>,
    /// Whether imports link to it (RegisterNonAutoLinkEntries registers it without).
    pub auto_link: bool,
}

impl Library {
    /// The name as text.
    pub fn name_str(&self) -> String {
        let n = self.name.iter().position(|&c| c == 0).unwrap_or(8);
        String::from_utf8_lossy(&self.name[..n]).into_owned()
    }
}

/// A module's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ModState {
    /// Loaded, not started.
    Loaded,
    /// Its entry is running.
    Starting,
    /// Started and resident.
    Resident,
    /// Started, resident, and may be unloaded.
    Removable,
    /// Its entry is running to stop it (StopModule).
    Stopping,
    /// Stopped (its entry answered NO_RESIDENT_END to the stop): may be unloaded.
    Stopped,
}

/// A loaded module.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Module {
    /// The module id.
    pub id: i32,
    /// The name from its id record (or .iopmod).
    pub name: String,
    /// Its version.
    pub version: u16,
    /// The sysmem block (0 for native modules).
    pub block: u32,
    /// The text's address (0 for native modules).
    pub text: u32,
    /// The module's memory size.
    pub size: u32,
    /// Sizes.
    pub text_size: u32,
    /// Data size.
    pub data_size: u32,
    /// Bss size.
    pub bss_size: u32,
    /// The entry point.
    pub entry: u32,
    /// gp.
    pub gp: u32,
    /// The state.
    pub state: ModState,
    /// Its ModuleInfo_t in IOP RAM (0: none, a module loaded at a fixed address), linked into
    /// the chain that starts at 0x800 ([`super::image`]).
    pub info: u32,
    /// A native module's text in the kernel's image (the guest-visible range its ModuleInfo
    /// gives); 0 for a module with code of its own.
    pub kernel_text: u32,
    /// The size of that range (text, data and bss).
    pub kernel_size: u32,
}

impl Module {
    /// Where its memory starts: its text, or a native module's range in the kernel's image.
    pub fn start(&self) -> u32 {
        if self.text != 0 {
            self.text
        } else {
            self.kernel_text
        }
    }
}

/// A request to the module loader thread.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct StartRequest {
    /// The module to start.
    pub module: i32,
    /// `argv[0]`.
    pub path: String,
    /// The further arguments (NUL-separated strings, as LoadStartModule takes them).
    pub args: Vec<u8>,
    /// The thread waiting for the result (and where it wants the start result), if any.
    pub waiter: Option<(u32, u32)>,
    /// A native server's call waiting for the result (LOADFILE), by token.
    pub token: Option<u32>,
    /// The image to load first, when the request loads as well as starts.
    pub image: Option<Vec<u8>>,
    /// A stop (StopModule), not a start: the entry runs with a negative argc.
    pub stop: bool,
}

/// What became of a module queued with [`Iop::queue_module`].
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Its path.
    pub path: String,
    /// The module id, or the load's error code.
    pub id: i32,
    /// The start result, once the entry returned.
    pub result: Option<i32>,
}

/// loadcore's and modload's state.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct LoadCore {
    /// Why the last failed load failed (see [`Iop::load_error`]).
    pub last_error: Option<String>,
    /// Keep load failures off stderr (a caller that reports them itself).
    pub quiet: bool,
    /// Registered libraries, oldest first.
    pub libraries: Vec<Library>,
    /// Loaded modules, by load order.
    pub modules: Vec<Module>,
    pub(crate) next_id: i32,
    /// The ctype table sysclib hands out.
    pub ctype_table: u32,
    /// The loader thread.
    pub loader: u32,
    /// Pending start requests.
    pub requests: std::collections::VecDeque<StartRequest>,
    /// The request the loader runs now.
    pub running: Option<StartRequest>,
    /// Start results, by module id, for whoever asked ([`Iop::start_result`]).
    pub results: std::collections::BTreeMap<i32, i32>,
    /// The modules queued with [`Iop::queue_module`], in order, and what became of them.
    pub outcomes: Vec<Outcome>,
    /// The boot area's next free byte (the ctype table, SIF buffers, native modules' infos).
    arena: u32,
    arena_end: u32,
    /// The guest-visible parts of loadcore ([`super::image`]): lc_internals_t's address and
    /// the pool of ModuleInfo_t for native modules loaded after boot.
    pub image: super::image::ImageState,
}

impl LoadCore {
    /// The module whose memory holds `pc` (a native module's range in the kernel's image
    /// counts: SearchModuleByAddress answers as the guest's walk of the module chain does).
    pub fn module_at(&self, pc: u32) -> Option<&Module> {
        self.modules.iter().find(|m| {
            (m.text != 0 && pc >= m.text && pc < m.text + m.size)
                || (m.text == 0 && pc >= m.kernel_text && pc < m.kernel_text + m.kernel_size)
        })
    }
}

/// The kernel's internal natives (not in any export table): the vblank line handlers, the
/// loader thread's entry.
pub(crate) const INTERNAL: LibDef = LibDef {
    name: "(kernel)",
    version: 0x0100,
    funcs: &[
        (0, "vblank_start_handler", super::time::vblank_start_handler),
        (1, "vblank_end_handler", super::time::vblank_end_handler),
        (2, "loader_main", loader_main),
        (3, "dma_dispatch", super::sif::dma_dispatch),
        (4, "sif1_interrupt", super::sifcmd::sif1_interrupt),
        (5, "timer_irq", super::timrman::timer_irq),
    ],
};

/// The native system libraries (the kernel's image places them in their modules, in the
/// console's order).
pub(crate) fn libraries() -> Vec<&'static LibDef> {
    let mut v = vec![
        &LOADCORE,
        &super::sysmem::SYSMEM,
        &super::bootmods::EXCEPMAN,
        &super::bootmods::SSBUSC,
        &super::dmacman::DMACMAN,
        &super::bootmods::SECRMAN,
        &super::bootmods::EESYNC,
        &super::heaplib::HEAPLIB,
        &super::intr::INTRMAN,
        &super::clib::SYSCLIB,
        &super::clib::STDIO,
        &super::thread::THBASE,
        &super::sync::THSEMAP,
        &super::sync::THEVENT,
        &super::sync::THMSGBX,
        &super::pools::THVPOOL,
        &super::pools::THFPOOL,
        &super::time::VBLANK,
        &super::timrman::TIMRMAN,
        &MODLOAD,
    ];
    v.extend(crate::modules::libraries());
    v
}

impl Iop {
    /// `size` bytes (16-aligned) of the kernel's boot area.
    pub(crate) fn arena_alloc(&mut self, size: u32) -> u32 {
        let a = self.kernel.loadcore.arena;
        let n = (size + 15) & !15;
        assert!(
            a + n <= self.kernel.loadcore.arena_end,
            "kernel boot area full"
        );
        self.kernel.loadcore.arena = a + n;
        a
    }

    /// A module entry without code, for a native module: loaded, resident once started.
    pub fn add_native_module(&mut self, name: &str) -> i32 {
        let id = self.add_module(name, 0x0101, 0, 0, ModState::Loaded);
        super::image::native_module_info(self, id);
        id
    }

    /// Load the module at `path`: a native rom module, or a file. Returns the id or an error.
    pub fn load_path(&mut self, path: &str) -> i32 {
        if let Some(id) = crate::modules::load_native(self, path) {
            return id;
        }
        match crate::modules::read_file(self, path) {
            Ok(image) => self.load_module_image(path, &image),
            Err(e) => {
                eprintln!("piney: iop: module {path}: cannot be read (error {e})");
                e
            }
        }
    }

    /// Load the module image in IOP RAM at `a` (LoadModuleBuffer).
    pub fn load_buffer(&mut self, a: u32) -> i32 {
        let n = image_size(self, a);
        let mut image = vec![0; n];
        self.bus.read_ram(a, &mut image);
        let name = format!("(buffer at {a:#010x})");
        self.load_module_image(&name, &image)
    }

    /// Whether module `id` can be stopped now: 0 when it can, else the error StopModule
    /// answers (modload: not started, already stopping or stopped, not removable).
    pub fn stop_check(&self, id: i32) -> i32 {
        match self.kernel.loadcore.modules.iter().find(|m| m.id == id) {
            None => kerr::UNKNOWN_MODULE,
            Some(m) => match m.state {
                ModState::Loaded | ModState::Starting => kerr::NOT_STARTED,
                ModState::Stopping => kerr::ALREADY_STOPPING,
                ModState::Stopped => kerr::ALREADY_STOPPED,
                ModState::Resident => kerr::NOT_REMOVABLE,
                ModState::Removable => 0,
            },
        }
    }

    /// Queue StopModule of `id` with `args` on the loader thread: the module's entry runs with
    /// argc = -(1 + the arguments) and argv[0] = "other" (modload's stop_module), and its answer
    /// decides: NO_RESIDENT_END (1) stops it (StopModule returns the id), RESIDENT_END (0) or
    /// REMOVABLE_END (2) keep it running and removable (KE_CAN_NOT_STOP). The result goes to `waiter`
    /// (thread, result pointer) or the native call `token`.
    pub fn request_stop(
        &mut self,
        id: i32,
        args: &[u8],
        waiter: Option<(u32, u32)>,
        token: Option<u32>,
    ) {
        self.queue_start(StartRequest {
            module: id,
            path: "other".into(),
            args: args.to_vec(),
            waiter,
            token,
            image: None,
            stop: true,
        });
    }

    /// UnloadModule: a module loaded and not started, or stopped, is unloaded; a removable one
    /// still running answers KE_NOT_STOPPED, any other KE_NOT_REMOVABLE (modload's rules).
    pub fn unload_module(&mut self, id: i32) -> i32 {
        match self.kernel.loadcore.modules.iter().find(|m| m.id == id) {
            None => kerr::UNKNOWN_MODULE,
            Some(m) => match m.state {
                ModState::Loaded | ModState::Stopped => {
                    self.unload(id);
                    id
                }
                ModState::Removable | ModState::Stopping => kerr::NOT_STOPPED,
                ModState::Resident | ModState::Starting => kerr::NOT_REMOVABLE,
            },
        }
    }

    /// SearchModuleByName.
    pub fn search_module(&self, name: &str) -> i32 {
        self.kernel
            .loadcore
            .modules
            .iter()
            .rev()
            .find(|m| m.name == name)
            .map_or(kerr::UNKNOWN_MODULE, |m| m.id)
    }

    pub(crate) fn add_module(
        &mut self,
        name: &str,
        version: u16,
        block: u32,
        text: u32,
        state: ModState,
    ) -> i32 {
        self.kernel.loadcore.next_id += 1;
        let id = self.kernel.loadcore.next_id;
        self.kernel.loadcore.modules.push(Module {
            id,
            name: name.to_string(),
            version,
            block,
            text,
            size: 0,
            text_size: 0,
            data_size: 0,
            bss_size: 0,
            entry: 0,
            gp: 0,
            state,
            info: 0,
            kernel_text: 0,
            kernel_size: 0,
        });
        id
    }

    /// The native address of library function `(lib, index)`.
    pub fn native_address(&self, lib: &str, index: u16) -> Option<u32> {
        self.kernel
            .native_addr
            .iter()
            .find(|((l, i), _)| *l == lib && *i == index)
            .map(|(_, a)| *a)
    }

    /// Register the export table at `table`: 0, or KE_LIBRARY_FOUND when a library with that
    /// name, major version and at least that minor is registered.
    pub fn register_library(&mut self, table: u32) -> i32 {
        if self.bus.ram_u32(table) != EXPORT_MAGIC {
            return kerr::ILLEGAL_LIBRARY;
        }
        let version = self.bus.ram_u16(table.wrapping_add(8));
        let mut name = [0u8; 8];
        self.bus.read_ram(table.wrapping_add(12), &mut name);
        if self.kernel.loadcore.libraries.iter().any(|l| {
            l.name == name && l.version >> 8 == version >> 8 && l.version & 0xff >= version & 0xff
        }) {
            return kerr::LIBRARY_FOUND;
        }
        let fptrs = super::image::export_pointers(self, table);
        // The console clears the table's non-auto-link flag (bit 0 of its flags).
        let flags = self.bus.ram_u16(table.wrapping_add(10));
        self.bus.set_ram_u16(table.wrapping_add(10), flags & !1);
        self.kernel.loadcore.libraries.push(Library {
            name,
            version,
            table,
            fptrs,
            callers: Vec::new(),
            auto_link: true,
        });
        let new = self.kernel.loadcore.libraries.len() - 1;
        super::image::relink_to_newer(self, new);
        super::image::sync(self);
        kerr::OK
    }

    /// Link every import table in `[start, start + size)`. On a missing library or index,
    /// the library name and index of the first failure (the tables of the range are then
    /// forgotten as callers: the load fails and its memory is freed).
    pub fn link_imports(&mut self, start: u32, size: u32) -> Result<(), (String, u32)> {
        let mut a = start;
        let end = start.saturating_add(size);
        let mut result = Ok(());
        while a.checked_add(20).is_some_and(|e| e <= end) {
            if !super::image::is_import_table(self, a) {
                a += 4;
                continue;
            }
            let version = self.bus.ram_u16(a.wrapping_add(8));
            let mut name = [0u8; 8];
            self.bus.read_ram(a.wrapping_add(12), &mut name);
            let lib = super::image::find_library(self, &name, version);
            match super::image::link_table(self, a, end, lib) {
                Ok(next) => a = next,
                Err(index) => {
                    let n = name.iter().position(|&c| c == 0).unwrap_or(8);
                    result = Err((String::from_utf8_lossy(&name[..n]).into_owned(), index));
                    break;
                }
            }
        }
        if result.is_err() {
            super::image::forget_callers(self, start, end);
        }
        super::image::sync(self);
        result
    }

    /// Why a load failed: one line on stderr (unless [`LoadCore::quiet`]), kept in
    /// [`LoadCore::last_error`].
    pub fn load_error(&mut self, what: String) {
        if !self.kernel.loadcore.quiet {
            eprintln!("piney: iop: {what}");
        }
        self.kernel.loadcore.last_error = Some(what);
    }

    /// Load module `image` (named `path` in messages): place, relocate and link it. Returns
    /// the module id, or the console's error code after one line on stderr.
    pub fn load_module_image(&mut self, path: &str, image: &[u8]) -> i32 {
        let irx = match irx::parse(path, image) {
            Ok(i) => i,
            Err(e) => {
                self.load_error(e.to_string());
                return kerr::ILLEGAL_OBJECT;
            }
        };
        if let Some(rom) = crate::modules::native_stand_in(&irx.name)
            && crate::modules::is_native(self, rom)
            && let Some(id) = crate::modules::load_native(self, &format!("rom0:{rom}"))
        {
            self.log_once(
                &format!("stand-in-{}", irx.name),
                &format!(
                    "module {path} is \"{}\" (version {}.{}), a driver piney answers natively: it is loaded as rom0:{rom}",
                    irx.name.escape_debug(),
                    irx.version >> 8,
                    irx.version & 0xff
                ),
            );
            return id;
        }
        let (block, text) = match irx.absolute {
            Some(addr) => {
                let b = self.sysmem_alloc(Mode::Addr, irx.mem_size, addr & 0x1f_ff00);
                (b.unwrap_or(0), addr)
            }
            None => match self.sysmem_alloc(Mode::First, irx.mem_size + MODINFO_SIZE, 0) {
                Some(b) => (b, b + MODINFO_SIZE),
                None => (0, 0),
            },
        };
        if block == 0 {
            self.load_error(format!(
                "module {path}: no room for its {:#x} bytes in IOP memory",
                irx.mem_size
            ));
            return kerr::NO_MEMORY;
        }
        let mem = irx.relocate(text);
        self.bus.write_ram(text, &mem);
        if let Err((lib, index)) = self.link_imports(text, irx.text_size.max(irx.mem_size)) {
            self.load_error(format!(
                "module {path}: import {index} of library \"{}\" is not available (no such library, or the library has no export {index}); the load fails with KE_LINKERR",
                lib.escape_debug()
            ));
            self.sysmem_free(block);
            return kerr::LINKERR;
        }
        let name = if irx.mod_id != 0xffff_ffff && irx.absolute.is_none() {
            let id_rec = text.wrapping_add(irx.mod_id);
            let name_ptr = self.bus.ram_u32(id_rec);
            let n = self.bus.ram_cstr(name_ptr, 64);
            if n.is_empty() { irx.name.clone() } else { n }
        } else {
            irx.name.clone()
        };
        let rel = |x: u32| {
            if irx.absolute.is_some() {
                x
            } else {
                text.wrapping_add(x)
            }
        };
        let id = self.add_module(&name, irx.version, block, text, ModState::Loaded);
        let m = self.kernel.loadcore.modules.last_mut().expect("module");
        m.size = irx.mem_size;
        m.text_size = irx.text_size;
        m.data_size = irx.data_size;
        m.bss_size = irx.bss_size;
        m.entry = rel(irx.entry);
        m.gp = rel(irx.gp);
        if irx.absolute.is_none() {
            m.info = block;
        }
        // The ModuleInfo_t before the text (next, name, version, flags, id, flags, entry, gp,
        // text_start, text_size, data_size, bss_size).
        if irx.absolute.is_none() {
            let m = m.clone();
            let info = block;
            let words = [
                0,
                if irx.mod_id != 0xffff_ffff {
                    self.bus.ram_u32(text.wrapping_add(irx.mod_id))
                } else {
                    0
                },
            ];
            self.bus.set_ram_u32(info, words[0]);
            self.bus.set_ram_u32(info.wrapping_add(4), words[1]);
            self.bus.set_ram_u16(info.wrapping_add(8), m.version);
            self.bus.set_ram_u16(info.wrapping_add(10), 1);
            self.bus.set_ram_u16(info.wrapping_add(12), id as u16);
            self.bus.set_ram_u16(info.wrapping_add(14), 0);
            for (i, w) in [m.entry, m.gp, m.text, m.text_size, m.data_size, m.bss_size]
                .iter()
                .enumerate()
            {
                self.bus.set_ram_u32(info + 16 + 4 * i as u32, *w);
            }
        }
        // Into the module chain.
        super::image::sync(self);
        id
    }

    /// Queue module `id` to be started by the loader thread with `argv[0]` = `path`.
    pub fn request_start(&mut self, id: i32, path: &str, args: &[u8], waiter: Option<(u32, u32)>) {
        self.queue_start(StartRequest {
            module: id,
            path: path.to_string(),
            args: args.to_vec(),
            waiter,
            token: None,
            image: None,
            stop: false,
        });
    }

    /// Queue `image` to be loaded and started on the loader thread after the modules queued
    /// before it (as a console loads its modules one after the other, each started before the
    /// next is linked). What became of it is in [`LoadCore::outcomes`].
    pub fn queue_module(&mut self, path: &str, image: Vec<u8>, args: &[u8]) {
        self.queue_start(StartRequest {
            module: 0,
            path: path.to_string(),
            args: args.to_vec(),
            waiter: None,
            token: None,
            image: Some(image),
            stop: false,
        });
    }

    /// Queue module `id`'s start for a native server's call `token`, answered with { id, start
    /// result } when the entry returned.
    pub fn request_start_token(&mut self, id: i32, path: &str, args: &[u8], token: u32) {
        self.queue_start(StartRequest {
            module: id,
            path: path.to_string(),
            args: args.to_vec(),
            waiter: None,
            token: Some(token),
            image: None,
            stop: false,
        });
    }

    fn queue_start(&mut self, req: StartRequest) {
        self.kernel.loadcore.requests.push_back(req);
        let l = self.kernel.loadcore.loader;
        if self
            .kernel
            .threads
            .get(&l)
            .is_some_and(|t| t.wait == Wait::Native(WAIT_LOADER_IDLE))
        {
            // Readied, not switched to: the caller is inside a native call (its context is not
            // ready to be saved). The loader runs once the caller waits or yields.
            self.wake_later(l, 0);
        }
    }

    /// Load `image` and queue its start; returns the module id or an error code. The start's
    /// result is available from [`Iop::start_result`] once the loader ran it.
    pub fn load_and_start(&mut self, path: &str, image: &[u8], args: &[u8]) -> i32 {
        let id = self.load_module_image(path, image);
        if id >= 0 {
            self.request_start(id, path, args, None);
        }
        id
    }

    /// The start result of module `id`, once its entry returned.
    pub fn start_result(&self, id: i32) -> Option<i32> {
        self.kernel.loadcore.results.get(&id).copied()
    }

    /// Whether the loader has no request left to run.
    pub fn loader_idle(&self) -> bool {
        self.kernel.loadcore.requests.is_empty() && self.kernel.loadcore.running.is_none()
    }

    pub(crate) fn module_mut(&mut self, id: i32) -> Option<&mut Module> {
        self.kernel.loadcore.modules.iter_mut().find(|m| m.id == id)
    }

    /// Remove module `id`: its libraries are released and its memory freed.
    pub fn unload(&mut self, id: i32) {
        let Some(i) = self.kernel.loadcore.modules.iter().position(|m| m.id == id) else {
            return;
        };
        let m = self.kernel.loadcore.modules.remove(i);
        if m.text != 0 {
            let (lo, hi) = (m.text, m.text + m.size);
            self.kernel
                .loadcore
                .libraries
                .retain(|l| !(l.table >= lo && l.table < hi));
            super::image::forget_callers(self, lo, hi);
        }
        if m.block != 0 {
            self.sysmem_free(m.block);
        }
        super::image::sync(self);
    }
}

/// Boot: memory layout, native libraries, the vblank handlers, the loader thread.
pub fn boot(iop: &mut Iop) {
    let k = &mut iop.kernel;
    // The vectors, the kernel's image (native modules, their slots and export tables:
    // [`super::image`]) and the return points at the bottom of RAM.
    k.sysmem
        .alloc(Mode::Addr, super::RETURN_END.next_multiple_of(0x100), 0)
        .expect("boot: low RAM");
    // The kernel's boot area (ctype table, SIF buffers, infos of native modules added
    // later) and the kernel heap.
    let arena = k.sysmem.alloc(Mode::First, 0x4000, 0).expect("boot: arena");
    k.loadcore.arena = arena;
    k.loadcore.arena_end = arena + 0x4000;
    let heap = super::heaplib::create(iop, 2048, 1);
    iop.kernel.heap = heap;
    // The interrupt stack (intrman's own, in its module data on a console).
    let istack = iop
        .sysmem_alloc(Mode::First, super::intr::STACK_SIZE, 0)
        .expect("boot: interrupt stack");
    iop.kernel.intr_stack = istack + super::intr::STACK_SIZE - 16;
    for slot in 0..super::intr::SLOTS {
        iop.set_intr_handler(slot, super::intr::Handler::default());
    }
    for (i, w) in (0..super::RETURN_END - super::RETURN_BASE)
        .step_by(8)
        .enumerate()
    {
        let _ = i;
        iop.bus.set_ram_u32(super::RETURN_BASE + w, JR_RA);
    }
    // The native libraries, their modules and loadcore's lists, in the console's layout.
    super::image::build(iop, &INTERNAL, &libraries());
    super::dmacman::boot(iop);
    super::bootmods::boot(iop);
    let ct = iop.arena_alloc(128);
    for c in 0..128u8 {
        let v = super::clib::ctype(c);
        iop.bus.write_ram(ct + c as u32, &[v]);
    }
    iop.kernel.loadcore.ctype_table = ct;
    // The rest of the resident system's share of low RAM.
    let used_to = iop.kernel.sysmem.block_of(istack).map_or(0, |b| b.0 + b.1);
    if used_to < sysmem::BOOT_RESERVED {
        iop.sysmem_alloc(Mode::Addr, sysmem::BOOT_RESERVED - used_to, used_to);
    }
    // The vblank module's handlers on the VBLANK and EVBLANK lines, enabled.
    let vs = iop.native_address("(kernel)", 0).expect("vblank handler");
    let ve = iop.native_address("(kernel)", 1).expect("vblank handler");
    use crate::hw::intc::line;
    iop.set_intr_handler(
        line::VBLANK as usize,
        super::intr::Handler {
            field: vs | 1,
            arg: 0,
        },
    );
    iop.set_intr_handler(
        line::EVBLANK as usize,
        super::intr::Handler {
            field: ve | 1,
            arg: 0,
        },
    );
    iop.bus.hw.intc.mask |= (1 << line::VBLANK) | (1 << line::EVBLANK);
    // intrman's own handler on the DMA line dispatches the channels' handlers; sifcmd's handler
    // takes SIF1's interrupt (code 0x2b, enabled in DICR2).
    let dd = iop.native_address("(kernel)", 3).expect("dma dispatch");
    let s1 = iop.native_address("(kernel)", 4).expect("sif1 handler");
    iop.set_intr_handler(
        line::DMA as usize,
        super::intr::Handler {
            field: dd | 1,
            arg: 0,
        },
    );
    iop.set_intr_handler(0x2b, super::intr::Handler { field: s1, arg: 0 });
    iop.bus.hw.intc.mask |= 1 << line::DMA;
    // cdvdman's handler on the CDVD line (a C handler, mode 1), where programs look for it and
    // chain theirs in front (ps2sdk's poweroff.irx refuses to load without it). The native drive
    // completes its commands itself and raises no CDVD interrupt, so it is never entered.
    if let Some(h) = iop.native_address("cdvdman", 1) {
        iop.set_intr_handler(
            line::CDVD as usize,
            super::intr::Handler {
                field: h | 1,
                arg: 0,
            },
        );
    }
    iop.bus.hw.dmac.irq_enable(0x2b - 0x20, true);
    iop.bus.hw.dmac.dicr |= 1 << 23;
    // sifman's tag buffers, sifcmd's receive and send buffers.
    iop.kernel.sifman.tag_bufs = [iop.arena_alloc(512), iop.arena_alloc(512)];
    let recv = iop.arena_alloc(super::sifcmd::RECV_SIZE);
    let copy = iop.arena_alloc(super::sifcmd::RECV_SIZE);
    let ring = iop.arena_alloc(32 * 64);
    iop.sifcmd_boot(recv, copy, ring);
    iop.bus.hw.intc.ctrl = 1;
    // The module loader thread.
    let main = iop.native_address("(kernel)", 2).expect("loader");
    let id = iop.create_thread(TH_C, main, LOADER_PRIORITY, 0x1000, 0) as u32;
    iop.kernel.loadcore.loader = id;
    iop.start_thread(id, 0);
}

/// The loader thread's entry and loop: run the next start request, or wait for one.
fn loader_main(iop: &mut Iop) -> Result<Ret, IopError> {
    loader_loop(iop)?;
    Ok(Ret::Done)
}

/// The loader's loop: start the next requested module, or sleep until one is requested.
pub fn loader_loop(iop: &mut Iop) -> Result<(), IopError> {
    let Some(mut req) = iop.kernel.loadcore.requests.pop_front() else {
        // The boot list's modules have all started: EESYNC's turn.
        if std::mem::take(&mut iop.modules.boot_pending) {
            iop.boot_end();
        }
        iop.cpu.set_pc(ret::LOADER_LOOP);
        iop.wait_current(Wait::Native(WAIT_LOADER_IDLE));
        return Ok(());
    };
    if let Some(image) = req.image.take() {
        let id = iop.load_module_image(&req.path, &image);
        iop.kernel.loadcore.outcomes.push(Outcome {
            path: req.path.clone(),
            id,
            result: None,
        });
        if id < 0 {
            iop.cpu.set_pc(ret::LOADER_LOOP);
            return Ok(());
        }
        req.module = id;
    }
    let Some(m) = iop.module_mut(req.module).map(|m| m.clone()) else {
        finish_request(iop, &req, kerr::UNKNOWN_MODULE, kerr::UNKNOWN_MODULE);
        iop.cpu.set_pc(ret::LOADER_LOOP);
        return Ok(());
    };
    if req.stop {
        let e = iop.stop_check(m.id);
        if e < 0 || m.text == 0 {
            // A native module has no entry to ask: it stops.
            if e == 0 {
                iop.module_mut(m.id).expect("module").state = ModState::Stopped;
            }
            let v0 = if e < 0 { e } else { m.id };
            finish_request(iop, &req, v0, if e < 0 { e } else { 1 });
            iop.cpu.set_pc(ret::LOADER_LOOP);
            return Ok(());
        }
        iop.module_mut(m.id).expect("module").state = ModState::Stopping;
    } else if m.text == 0 {
        // A native module: nothing to run. Loaded again, a console's second copy of a rom
        // driver cannot register its library and ends NO_RESIDENT_END (1); piney answers with
        // the first copy's id.
        let first = m.state == ModState::Loaded;
        iop.module_mut(m.id).expect("module").state = ModState::Resident;
        finish_request(iop, &req, m.id, if first { 0 } else { 1 });
        iop.cpu.set_pc(ret::LOADER_LOOP);
        return Ok(());
    }
    if !req.stop {
        if m.state != ModState::Loaded {
            finish_request(iop, &req, kerr::ALREADY_STARTED, kerr::ALREADY_STARTED);
            iop.cpu.set_pc(ret::LOADER_LOOP);
            return Ok(());
        }
        iop.module_mut(m.id).expect("module").state = ModState::Starting;
    }
    super::image::sync(iop);
    // argv on the loader's stack: the strings, then the pointer array.
    let mut strings = req.path.as_bytes().to_vec();
    strings.push(0);
    strings.extend_from_slice(&req.args);
    if !strings.ends_with(&[0]) {
        strings.push(0);
    }
    let mut offsets = vec![0u32];
    let mut at = req.path.len() + 1;
    while at < strings.len() {
        offsets.push(at as u32);
        at += strings[at..].iter().position(|&c| c == 0).unwrap_or(0) + 1;
    }
    let top = iop.kernel.threads[&iop.kernel.loadcore.loader].stack
        + iop.kernel.threads[&iop.kernel.loadcore.loader].stack_size
        - 0x100;
    let str_at = (top - strings.len() as u32) & !3;
    let argv_at = (str_at - 4 * (offsets.len() as u32 + 1)) & !7;
    iop.bus.write_ram(str_at, &strings);
    for (i, o) in offsets.iter().enumerate() {
        iop.bus
            .set_ram_u32(argv_at.wrapping_add(4 * i as u32), str_at + o);
    }
    iop.bus.set_ram_u32(argv_at + 4 * offsets.len() as u32, 0);
    iop.cpu.gpr[29] = argv_at - 16;
    iop.cpu.gpr[28] = m.gp;
    let stop = req.stop;
    iop.kernel.loadcore.running = Some(req);
    let argc = offsets.len() as i32;
    // A stop passes the count negated.
    let argc = if stop { -argc } else { argc } as u32;
    iop.call_guest(m.entry, &[argc, argv_at, 0, m.block], ret::MODULE_START);
    Ok(())
}

fn finish_request(iop: &mut Iop, req: &StartRequest, v0: i32, result: i32) {
    // The module's new state (or its absence) in the guest's module chain.
    super::image::sync(iop);
    iop.kernel.loadcore.results.insert(req.module, result);
    if let Some(o) = iop
        .kernel
        .loadcore
        .outcomes
        .iter_mut()
        .rev()
        .find(|o| o.id == req.module)
    {
        o.result = Some(result);
    }
    if let Some(t) = req.token {
        let mut r = Vec::with_capacity(8);
        r.extend_from_slice(&(v0 as u32).to_le_bytes());
        r.extend_from_slice(&(result as u32).to_le_bytes());
        iop.complete_call(t, &r);
    }
    if let Some((t, res_ptr)) = req.waiter {
        if res_ptr != 0 {
            iop.bus.set_ram_u32(res_ptr, result as u32);
        }
        if iop
            .kernel
            .threads
            .get(&t)
            .is_some_and(|th| th.wait == Wait::Native(WAIT_LOADER))
        {
            iop.wake_later(t, v0 as u32);
        }
    }
}

/// A module's entry returned: record the result, unload it if it asked, continue the loop.
pub fn module_start_returned(iop: &mut Iop) -> Result<(), IopError> {
    let result = iop.cpu.gpr[2] as i32;
    let Some(req) = iop.kernel.loadcore.running.take() else {
        return Err(iop.fault("a module entry returned with no start in progress".into()));
    };
    // The loader thread's priority is restored (a module's entry may change it).
    let l = iop.kernel.loadcore.loader;
    if let Some(t) = iop.kernel.threads.get_mut(&l) {
        t.priority = LOADER_PRIORITY;
    }
    let id = req.module;
    if req.stop {
        // modload's stop_module: NO_RESIDENT_END stops the module; RESIDENT_END and
        // REMOVABLE_END leave it running (and removable: the flag stays) and StopModule fails.
        let (state, v0) = match result & 3 {
            1 => (ModState::Stopped, id),
            _ => (ModState::Removable, kerr::CAN_NOT_STOP),
        };
        if let Some(m) = iop.module_mut(id) {
            m.state = state;
        }
        finish_request(iop, &req, v0, result);
        iop.cpu.set_pc(ret::LOADER_LOOP);
        iop.preempt_check();
        return Ok(());
    }
    match result & 3 {
        1 => iop.unload(id),
        2 => {
            if let Some(m) = iop.module_mut(id) {
                m.state = ModState::Removable;
            }
        }
        _ => {
            if let Some(m) = iop.module_mut(id) {
                m.state = ModState::Resident;
            }
        }
    }
    finish_request(iop, &req, id, result);
    iop.cpu.set_pc(ret::LOADER_LOOP);
    iop.preempt_check();
    Ok(())
}

// ---- loadcore's exports ----

fn v(x: i32) -> Result<Ret, IopError> {
    Ok(Ret::V(x as u32))
}

fn flush_cache(_: &mut Iop) -> Result<Ret, IopError> {
    v(kerr::OK)
}

fn register_library_entries(iop: &mut Iop) -> Result<Ret, IopError> {
    let t = iop.arg(0);
    v(iop.register_library(t))
}

fn release_library_entries(iop: &mut Iop) -> Result<Ret, IopError> {
    let t = iop.arg(0);
    let libs = &mut iop.kernel.loadcore.libraries;
    match libs.iter().position(|l| l.table == t) {
        Some(i) => {
            libs.remove(i);
            // The table is the module's again: its magic back (the console's).
            super::image::restore_magic(iop, t);
            super::image::sync(iop);
            v(kerr::OK)
        }
        None => v(kerr::LIBRARY_NOTFOUND),
    }
}

fn link_library_entries(iop: &mut Iop) -> Result<Ret, IopError> {
    // The range, in RAM (a size past its end scans to the end).
    let a = iop.arg(0) & (sysmem::MEM_SIZE - 1);
    let n = iop.arg(1).min(sysmem::MEM_SIZE - a);
    v(match iop.link_imports(a, n) {
        Ok(()) => kerr::OK,
        Err(_) => kerr::ERROR,
    })
}

fn query_library_entry_table(iop: &mut Iop) -> Result<Ret, IopError> {
    // QueryLibraryEntryTable(iop_library_t *): the export table of the newest library with
    // that name and major version (its function pointer array).
    let p = iop.arg(0);
    let version = iop.bus.ram_u16(p.wrapping_add(8));
    let mut name = [0u8; 8];
    iop.bus.read_ram(p.wrapping_add(12), &mut name);
    let t = iop
        .kernel
        .loadcore
        .libraries
        .iter()
        .rev()
        .find(|l| l.name == name && l.version >> 8 == version >> 8)
        .map_or(0, |l| l.table + 20);
    Ok(Ret::V(t))
}

fn query_boot_mode(_: &mut Iop) -> Result<Ret, IopError> {
    // No boot modes are registered (a plain boot).
    Ok(Ret::V(0))
}

/// loadcore.
pub const LOADCORE: LibDef = LibDef {
    name: "loadcore",
    version: 0x0103,
    funcs: &[
        (
            3,
            "GetLoadcoreInternalData",
            super::image::get_loadcore_internal_data,
        ),
        (4, "FlushIcache", flush_cache),
        (5, "FlushDcache", flush_cache),
        (6, "RegisterLibraryEntries", register_library_entries),
        (7, "ReleaseLibraryEntries", release_library_entries),
        (8, "LinkLibraryEntries", link_library_entries),
        (
            9,
            "UnLinkLibraryEntries",
            super::image::unlink_library_entries,
        ),
        (
            10,
            "RegisterNonAutoLinkEntries",
            super::image::register_non_auto_link,
        ),
        (11, "QueryLibraryEntryTable", query_library_entry_table),
        (12, "QueryBootMode", query_boot_mode),
    ],
};

// ---- modload's exports ----

fn load_path(iop: &mut Iop, path: &str) -> i32 {
    iop.load_path(path)
}

fn args_of(iop: &Iop, len: u32, p: u32) -> Vec<u8> {
    let mut a = vec![0; (len as usize).min(4096)];
    if p != 0 {
        iop.bus.read_ram(p, &mut a);
    }
    a
}

fn load_module(iop: &mut Iop) -> Result<Ret, IopError> {
    let p = iop.arg(0);
    let path = iop.bus.ram_cstr(p, 256);
    v(load_path(iop, &path))
}

/// Start module `id` on the loader thread and make the calling thread wait for it.
fn start_and_wait(
    iop: &mut Iop,
    id: i32,
    path: &str,
    args: &[u8],
    res: u32,
) -> Result<Ret, IopError> {
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    let cur = iop.current_thread();
    let native = iop
        .kernel
        .loadcore
        .modules
        .iter()
        .find(|m| m.id == id)
        .filter(|m| m.text == 0)
        .map(|m| m.state);
    if cur == iop.kernel.loadcore.loader
        && let Some(state) = native
    {
        // A native rom module (rom0:LIBSD) loaded by a module's entry: it has no entry to
        // run, so its start is over at once, as the console's nested start would be by the
        // time LoadStartModule returns: the result is written now (0, RESIDENT_END; a second
        // copy 1, as in the loader's own path below).
        let first = state == ModState::Loaded;
        iop.module_mut(id).expect("module").state = ModState::Resident;
        let req = StartRequest {
            module: id,
            path: path.to_string(),
            args: args.to_vec(),
            waiter: None,
            token: None,
            image: None,
            stop: false,
        };
        let result = if first { 0 } else { 1 };
        finish_request(iop, &req, id, result);
        if res != 0 {
            iop.bus.set_ram_u32(res, result as u32);
        }
        return v(id);
    }
    if cur == iop.kernel.loadcore.loader {
        // The loader itself (a module's entry loading another module): the console runs the
        // nested start on the same thread; piney queues it behind the current one.
        iop.request_start(id, path, args, None);
        return v(id);
    }
    iop.request_start(id, path, args, Some((cur, res)));
    iop.return_to_caller();
    iop.wait_current(Wait::Native(WAIT_LOADER));
    Ok(Ret::Done)
}

fn load_start_module(iop: &mut Iop) -> Result<Ret, IopError> {
    let (p, len, argp, res) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    let path = iop.bus.ram_cstr(p, 256);
    let args = args_of(iop, len, argp);
    let id = load_path(iop, &path);
    if id < 0 {
        return v(id);
    }
    start_and_wait(iop, id, &path, &args, res)
}

fn start_module(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, p, len, argp, res) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3), iop.arg(4));
    let path = iop.bus.ram_cstr(p, 256);
    let args = args_of(iop, len, argp);
    let id = id as i32;
    match iop.kernel.loadcore.modules.iter().find(|m| m.id == id) {
        None => v(kerr::UNKNOWN_MODULE),
        Some(m) if m.state != ModState::Loaded => v(kerr::ALREADY_STARTED),
        Some(_) => start_and_wait(iop, id, &path, &args, res),
    }
}

/// The size of an ELF image in IOP RAM, from its headers (for LoadModuleBuffer).
fn image_size(iop: &Iop, a: u32) -> usize {
    let w = |o: u32| iop.bus.ram_u32(a + o);
    let h = |o: u32| iop.bus.ram_u16(a + o) as u32;
    let (phoff, shoff) = (w(28), w(32));
    let (phnum, phsz, shnum, shsz) = (h(44), h(42), h(48), h(46));
    let mut end = shoff.saturating_add(shnum.saturating_mul(shsz));
    for i in 0..phnum.min(16) {
        let p = phoff + i * phsz;
        end = end.max(w(p + 4).saturating_add(w(p + 16)));
    }
    for i in 0..shnum.min(256) {
        let s = shoff + i * shsz;
        if w(s + 4) != 8 {
            end = end.max(w(s + 16).saturating_add(w(s + 20)));
        }
    }
    (end as usize).min(irx::MAX_IMAGE)
}

fn load_module_buffer(iop: &mut Iop) -> Result<Ret, IopError> {
    let a = iop.arg(0);
    v(iop.load_buffer(a))
}

/// StopModule(id, arglen, args, result): runs the module's entry to stop it, on the loader
/// thread, and waits for its answer.
fn stop_module(iop: &mut Iop) -> Result<Ret, IopError> {
    let (id, len, argp, res) = (iop.arg(0) as i32, iop.arg(1), iop.arg(2), iop.arg(3));
    if iop.in_interrupt() {
        return v(kerr::ILLEGAL_CONTEXT);
    }
    // modload finds the calling module by its return address; a caller outside every module,
    // or a module asking to stop itself (SelfStopModule's work), gets KE_CAN_NOT_STOP, the
    // latter after the target's own state checks.
    let caller = iop
        .kernel
        .loadcore
        .module_at(iop.cpu.gpr[31] & 0x1fff_ffff)
        .map(|m| m.id);
    let Some(caller) = caller else {
        return v(kerr::CAN_NOT_STOP);
    };
    let e = iop.stop_check(id);
    if e < 0 {
        return v(e);
    }
    if caller == id {
        return v(kerr::CAN_NOT_STOP);
    }
    let args = args_of(iop, len, argp);
    let cur = iop.current_thread();
    if cur == iop.kernel.loadcore.loader {
        // From a module's entry: queued behind the running request, as nested starts are.
        iop.request_stop(id, &args, None, None);
        return v(id);
    }
    iop.request_stop(id, &args, Some((cur, res)), None);
    iop.return_to_caller();
    iop.wait_current(Wait::Native(WAIT_LOADER));
    Ok(Ret::Done)
}

fn unload_module(iop: &mut Iop) -> Result<Ret, IopError> {
    let id = iop.arg(0) as i32;
    v(iop.unload_module(id))
}

fn search_module_by_name(iop: &mut Iop) -> Result<Ret, IopError> {
    let p = iop.arg(0);
    let name = iop.bus.ram_cstr(p, 64);
    v(iop.search_module(&name))
}

fn search_module_by_address(iop: &mut Iop) -> Result<Ret, IopError> {
    let a = iop.arg(0) & 0x1fff_ffff;
    v(iop
        .kernel
        .loadcore
        .module_at(a)
        .map_or(kerr::UNKNOWN_MODULE, |m| m.id))
}

fn get_module_id_list(iop: &mut Iop) -> Result<Ret, IopError> {
    let (buf, size, count) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let ids: Vec<i32> = iop.kernel.loadcore.modules.iter().map(|m| m.id).collect();
    for (i, id) in ids.iter().enumerate().take(size as usize) {
        iop.bus
            .set_ram_u32(buf.wrapping_add(4 * i as u32), *id as u32);
    }
    if count != 0 {
        iop.bus.set_ram_u32(count, ids.len() as u32);
    }
    v(ids.len().min(size as usize) as i32)
}

fn refer_module_status(iop: &mut Iop) -> Result<Ret, IopError> {
    // ModuleStatus: name[56], version (u16), flags (u16), id, entry, gp, text_addr, text_size,
    // data_size, bss_size, lreserve[2].
    let (id, p) = (iop.arg(0) as i32, iop.arg(1));
    let Some(m) = iop
        .kernel
        .loadcore
        .modules
        .iter()
        .find(|m| m.id == id)
        .cloned()
    else {
        return v(kerr::UNKNOWN_MODULE);
    };
    let mut name = [0u8; 56];
    let b = m.name.as_bytes();
    name[..b.len().min(55)].copy_from_slice(&b[..b.len().min(55)]);
    iop.bus.write_ram(p, &name);
    iop.bus.set_ram_u16(p.wrapping_add(56), m.version);
    let flags = super::image::module_flags(m.state);
    iop.bus.set_ram_u16(p.wrapping_add(58), flags);
    for (i, w) in [
        m.id as u32,
        m.entry,
        m.gp,
        m.start(),
        m.text_size,
        m.data_size,
        m.bss_size,
        0,
        0,
    ]
    .iter()
    .enumerate()
    {
        iop.bus.set_ram_u32(p + 60 + 4 * i as u32, *w);
    }
    v(kerr::OK)
}

fn alloc_load_memory(iop: &mut Iop) -> Result<Ret, IopError> {
    let (mode, size, addr) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let mode = match mode {
        0 => Mode::First,
        1 => Mode::Last,
        _ => Mode::Addr,
    };
    Ok(Ret::V(iop.sysmem_alloc(mode, size, addr).unwrap_or(0)))
}

fn free_load_memory(iop: &mut Iop) -> Result<Ret, IopError> {
    let a = iop.arg(0);
    v(iop.sysmem_free(a))
}

/// modload.
pub const MODLOAD: LibDef = LibDef {
    name: "modload",
    version: 0x0107,
    funcs: &[
        (6, "LoadModule", load_module),
        (7, "LoadStartModule", load_start_module),
        (8, "StartModule", start_module),
        (10, "LoadModuleBuffer", load_module_buffer),
        (16, "GetModuleIdList", get_module_id_list),
        (17, "ReferModuleStatus", refer_module_status),
        (20, "StopModule", stop_module),
        (21, "UnloadModule", unload_module),
        (22, "SearchModuleByName", search_module_by_name),
        (23, "SearchModuleByAddress", search_module_by_address),
        (28, "AllocLoadMemory", alloc_load_memory),
        (29, "FreeLoadMemory", free_load_memory),
    ],
};
