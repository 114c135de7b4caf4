//! The native modules beside the kernel: RPC servers answered natively (the rom's FILEIO,
//! LOADFILE and the IOP heap service, and whatever the machine adds: the pad driver, the
//! memory card server...), the rom0 module names that load them, the devices module paths name
//! (`host:`), the IOP's reboot, and the continuations of native code waiting for guest code.
//!
//! Contract:
//! - A [`NativeServer`] answers SIF RPC calls for its sid without a thread: it gets the
//!   argument bytes the EE sent and returns the reply bytes, [`Reply::Now`], or answers later
//!   with [`Iop::complete_call`]. It reaches the IOP through `&mut Iop` (its RAM, the EE's RAM
//!   while a slice runs through [`Iop::ee_read`], SIF0 sends through [`Iop::send_to_ee`]).
//! - A server is *available* from boot but *serves* only once loaded: the rom's own (FILEIO,
//!   LOADFILE, the heap service) at boot, the others when a module path names them
//!   (`rom0:PADMAN`...), exactly as a console only answers a module it has loaded. A reboot
//!   unloads every server that is not the rom's boot set.
//! - [`read_file`] resolves a module path (`host:PATH` is a file relative to
//!   [`Modules::host_root`], the current folder by default; `cdrom0:\PATH;1` a file of the
//!   disc, as cdvdman's device finds it).
//! - The IOP's one ioman ([`crate::kernel::ioman`]: devices and fds) lives in
//!   [`Modules::ioman`]; FILEIO and the `ioman`/`iomanx` libraries both use it.

pub mod cdvd;
pub mod fileio;
pub mod fileio_mc;
pub mod libsd;
pub mod loadfile;
pub mod mcserv;

use std::any::Any;
use std::path::PathBuf;

use crate::kernel::sifcmd::{self, PendingCall};
use crate::kernel::{LibDef, kerr};
use crate::{Iop, IopError};

/// What a native server answers.
#[derive(serde::Serialize, serde::Deserialize)]
pub enum Reply {
    /// These bytes, now.
    Now(Vec<u8>),
    /// Later, with [`Iop::complete_call`] and this token.
    Later(u32),
}

/// An RPC server answered natively.
pub trait NativeServer: Any {
    /// The server id clients bind to.
    fn sid(&self) -> u32;
    /// A name for messages.
    fn name(&self) -> &str;
    /// The rom0 module names that load it (none: it is part of the boot set).
    fn modules(&self) -> &[&'static str] {
        &[]
    }
    /// The size of its receive buffer in IOP RAM (the largest argument block).
    fn buffer_size(&self) -> u32 {
        0x1000
    }
    /// Run function `fno` with the argument bytes the EE sent. An error stops the run, naming
    /// it.
    fn call(&mut self, iop: &mut Iop, fno: u32, args: &[u8], token: u32) -> Result<Reply, String>;
    /// A vertical blank started (the pad driver writes its frames here).
    fn vblank(&mut self, _iop: &mut Iop, _vblank: u64) {}
    /// The IOP rebooted: forget all state.
    fn reset(&mut self) {}
    /// The server as `Any`, for its owner to reach it.
    fn as_any_mut(&mut self) -> &mut dyn Any;
    /// Save states: the server's state (apart from the host objects it holds, which a loaded
    /// state keeps from the running server); an error when it cannot be saved now.
    fn save_state(&self) -> Result<Vec<u8>, String>;
    /// Save states: `bytes` (from [`NativeServer::save_state`]) read into the state
    /// [`NativeServer::apply_state`] takes; nothing changes yet.
    fn decode_state(&self, bytes: &[u8]) -> Result<Box<dyn Any>, String>;
    /// Save states: take a state [`NativeServer::decode_state`] read.
    fn apply_state(&mut self, state: Box<dyn Any>);
}

/// The three save state methods of a [`NativeServer`] whose whole struct is its state.
#[macro_export]
macro_rules! whole_server_state {
    () => {
        fn save_state(&self) -> Result<Vec<u8>, String> {
            $crate::state::encode(self)
        }
        fn decode_state(&self, bytes: &[u8]) -> Result<Box<dyn std::any::Any>, String> {
            Ok(Box::new($crate::state::decode::<Self>(bytes)?))
        }
        fn apply_state(&mut self, state: Box<dyn std::any::Any>) {
            if let Ok(s) = state.downcast::<Self>() {
                *self = *s;
            }
        }
    };
}

/// A native server's place in the IOP.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Slot {
    #[serde(skip)]
    pub(crate) server: Option<Box<dyn NativeServer>>,
    /// Its SifRpcServerData_t in kernel RAM (0 until loaded).
    data: u32,
    /// Its receive buffer.
    buf: u32,
    /// Where its replies are placed for sending.
    reply: u32,
    /// Whether it serves (loaded).
    pub(crate) loaded: bool,
    /// The module id it shows as.
    module: i32,
}

/// The native modules' state.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct Modules {
    /// strtok's saved position.
    pub strtok_saved: u32,
    /// prnt's formatted text while its callback runs (a stack: prnt may nest).
    pub prnt_buffers: Vec<Vec<u8>>,
    /// The folder `host:` paths are relative to (the current folder when `None`).
    pub host_root: Option<PathBuf>,
    /// ioman's devices and files (a reboot starts them afresh).
    pub ioman: crate::kernel::ioman::Ioman,
    pub(crate) slots: Vec<Slot>,
    /// A reboot the EE asked for, due at this cycle, with its argument.
    pub reboot: Option<(u64, String)>,
    /// The IOPRP images of the last reboot (oldest first): their modules are rom0's too.
    pub rom_images: Vec<crate::romdir::RomImage>,
    /// The boot list's modules still to start before BOOTEND.
    pub boot_pending: bool,
    /// LIBSD's state (rom0:LIBSD, native).
    pub libsd: libsd::Libsd,
}

impl std::fmt::Debug for Modules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Modules")
            .field("servers", &self.slots.len())
            .finish()
    }
}

/// The rom0 modules that have no server of their own but that programs load (the SIO2
/// manager the pad and card drivers sit on, the multitap...): loading them succeeds and does
/// nothing else.
const QUIET_ROM_MODULES: &[&str] = &[
    "SIO2MAN", "XSIO2MAN", "MTAPMAN", "XMTAPMAN", "MCMAN", "XMCMAN",
];

/// Drivers that programs and discs carry their own copies of (built from Sony's sources or
/// ps2sdk's): by the module name in their `.iopmod` header, the rom0 module piney answers in
/// their place. Their work is the SIO2's (pads, memory cards, the multitap), which piney serves
/// natively rather than at the register level; the newer protocol is the one these copies speak,
/// and the native XPADMAN and XMCSERV answer the older one too.
const STAND_INS: &[(&str, &str)] = &[
    ("sio2man", "XSIO2MAN"),
    ("padman", "XPADMAN"),
    ("mcman", "XMCMAN"),
    ("mcman_cex", "XMCMAN"),
    ("mcserv", "XMCSERV"),
    ("multitap_manager", "XMTAPMAN"),
];

/// The rom0 module piney answers in place of a module named `name`, if it stands in for one.
pub fn native_stand_in(name: &str) -> Option<&'static str> {
    STAND_INS
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, rom)| *rom)
}

/// The modules of the BIOS's boot list (its IOPBTCONF), all emulated natively by the kernel
/// and the native servers; an IOPRP image's newer copies of them are answered natively too.
const BIOS_BOOT_MODULES: &[&str] = &[
    "SYSMEM",
    "LOADCORE",
    "EXCEPMAN",
    "INTRMANP",
    "INTRMANI",
    "INTRMAN",
    "SSBUSC",
    "DMACMAN",
    "TIMEMANP",
    "TIMEMANI",
    "TIMRMAN",
    "SYSCLIB",
    "HEAPLIB",
    "THREADMAN",
    "VBLANK",
    "IOMAN",
    "IOMANX",
    "MODLOAD",
    "ROMDRV",
    "ADDDRV",
    "STDIO",
    "SIFMAN",
    "IGREETING",
    "SIFCMD",
    "REBOOT",
    "LOADFILE",
    "CDVDMAN",
    "CDVDFSV",
    "SIFINIT",
    "FILEIO",
    "SECRMAN",
    "EESYNC",
];

/// Whether piney answers rom module `name` natively (kernel, boot set, quiet rom modules, a
/// native server's module).
pub fn is_native(iop: &Iop, name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    BIOS_BOOT_MODULES.contains(&n.as_str())
        || QUIET_ROM_MODULES.contains(&n.as_str())
        || n == "LIBSD"
        || iop.modules.slots.iter().any(|s| {
            s.server
                .as_ref()
                .is_some_and(|x| x.modules().iter().any(|m| m.eq_ignore_ascii_case(&n)))
        })
}

/// After a reboot with IOPRP images: boot their boot list. Native modules are loaded natively,
/// the others queued to run as code; returns how many were queued (BOOTEND waits for them).
pub fn boot_images(iop: &mut Iop) -> usize {
    let Some(conf) = iop
        .modules
        .rom_images
        .iter()
        .rev()
        .find_map(|i| i.file("IOPBTCONF"))
        .map(|f| f.data.clone())
    else {
        return 0;
    };
    let mut lines = crate::romdir::boot_list(&conf);
    let mut queued = 0;
    let mut includes = 0;
    let mut i = 0;
    while i < lines.len() {
        match lines[i].clone() {
            crate::romdir::BootLine::Include(name) => {
                // Includes nest a few levels on a console; a loop of them is a broken image.
                includes += 1;
                let inner = crate::romdir::select(&iop.modules.rom_images, &name)
                    .filter(|_| includes <= 8)
                    .map(|f| crate::romdir::boot_list(&f.data));
                match inner {
                    Some(l) => {
                        lines.splice(i + 1..i + 1, l);
                    }
                    None => eprintln!(
                        "piney: iop: IOPBTCONF includes {name}, which no IOPRP image holds (or the includes loop)"
                    ),
                }
            }
            crate::romdir::BootLine::Module(name) if is_native(iop, &name) => {
                if !BIOS_BOOT_MODULES.contains(&name.to_ascii_uppercase().as_str()) {
                    load_native(iop, &format!("rom0:{name}"));
                }
            }
            crate::romdir::BootLine::Module(name) => {
                match crate::romdir::select(&iop.modules.rom_images, &name) {
                    Some(f) => {
                        let data = f.data.clone();
                        iop.queue_module(&format!("rom0:{name}"), data, &[]);
                        queued += 1;
                    }
                    None => eprintln!(
                        "piney: iop: IOPBTCONF names {name}, which neither piney nor the IOPRP images hold; it is left out"
                    ),
                }
            }
            crate::romdir::BootLine::Other(_) => {}
        }
        i += 1;
    }
    iop.modules.boot_pending = queued > 0;
    queued
}

/// The boot set's servers.
pub fn boot_servers() -> Vec<Box<dyn NativeServer>> {
    let mut v: Vec<Box<dyn NativeServer>> = vec![
        Box::new(fileio::FileIo::new()),
        Box::new(fileio::IopHeap),
        Box::new(loadfile::LoadFile),
    ];
    v.extend(cdvd::cdvdfsv::servers());
    v
}

/// The native libraries of the native modules, installed at boot beside the kernel's.
pub fn libraries() -> Vec<&'static LibDef> {
    vec![
        &crate::kernel::sif::SIFMAN,
        &crate::kernel::sifcmd::SIFCMD,
        &crate::kernel::ioman::IOMAN,
        &crate::kernel::ioman::IOMANX,
        &cdvd::cdvdman::CDVDMAN,
        &cdvd::cdvdfsv::CDVDFSV,
    ]
}

impl Modules {
    /// Every native server, unloaded (a reboot's keepsake).
    pub fn take_servers(&mut self) -> Vec<Box<dyn NativeServer>> {
        self.slots.drain(..).filter_map(|s| s.server).collect()
    }

    /// The server data address of the loaded native server `sid`.
    pub fn native_server_data(&self, sid: u32) -> Option<u32> {
        self.slots.iter().find_map(|s| {
            (s.loaded && s.server.as_ref().is_some_and(|x| x.sid() == sid)).then_some(s.data)
        })
    }

    /// The native server `T`, if added.
    pub fn server_mut<T: NativeServer>(&mut self) -> Option<&mut T> {
        self.slots.iter_mut().find_map(|s| {
            s.server
                .as_mut()
                .and_then(|x| x.as_any_mut().downcast_mut::<T>())
        })
    }
}

impl Iop {
    /// The folder `host:` names, for module loads and FILEIO (a console's host file server;
    /// PCSX2's is the program's folder).
    pub fn set_host_root(&mut self, root: PathBuf) {
        // ioman's `host` device reads it at each call.
        self.modules.host_root = Some(root);
    }

    /// Add a native server (the machine's pad driver, memory cards...). It serves once a path
    /// it answers to is loaded, or at once when it names no module (part of the boot set).
    pub fn add_server(&mut self, server: Box<dyn NativeServer>) {
        let sid = server.sid();
        self.modules
            .slots
            .retain(|s| s.server.as_ref().is_none_or(|x| x.sid() != sid));
        let boot = server.modules().is_empty();
        self.modules.slots.push(Slot {
            server: Some(server),
            data: 0,
            buf: 0,
            reply: 0,
            loaded: false,
            module: 0,
        });
        if boot {
            let i = self.modules.slots.len() - 1;
            let id = self.load_server(i);
            if let Some(m) = self.module_mut(id) {
                m.state = crate::kernel::loadcore::ModState::Resident;
            }
        }
    }

    /// Make slot `i` serve: its server data and buffers in kernel RAM, a module entry.
    fn load_server(&mut self, i: usize) -> i32 {
        if self.modules.slots[i].loaded {
            return self.modules.slots[i].module;
        }
        let (sid, name, size) = {
            let s = self.modules.slots[i].server.as_ref().expect("server");
            (s.sid(), s.name().to_string(), s.buffer_size().max(16))
        };
        if self.modules.slots[i].data == 0 {
            let mode = crate::kernel::sysmem::Mode::Last;
            let data = self.sysmem_alloc(mode, 0x50, 0).unwrap_or(0);
            let buf = self.sysmem_alloc(mode, size, 0).unwrap_or(0);
            let reply = self.sysmem_alloc(mode, size.max(0x100), 0).unwrap_or(0);
            let s = &mut self.modules.slots[i];
            s.data = data;
            s.buf = buf;
            s.reply = reply;
        }
        let (data, buf) = (self.modules.slots[i].data, self.modules.slots[i].buf);
        for off in (0..0x50).step_by(4) {
            self.bus.set_ram_u32(data + off, 0);
        }
        self.bus.set_ram_u32(data, sid);
        self.bus.set_ram_u32(data.wrapping_add(8), buf);
        self.bus.set_ram_u32(data.wrapping_add(12), size);
        let id = self.native_module(&name);
        let s = &mut self.modules.slots[i];
        s.loaded = true;
        s.module = id;
        id
    }

    /// Read EE memory (the EE's RAM while a slice runs): what a native server's RDATA would
    /// fetch.
    pub fn ee_read(&mut self, addr: u32, len: usize) -> Result<Vec<u8>, String> {
        let a = (addr & 0x1fff_ffff) as usize;
        let ram = &self.ee_ram;
        if a.checked_add(len).is_none_or(|e| e > ram.len()) {
            return Err(format!(
                "EE memory at {addr:#010x} (+{len:#x}) is outside EE RAM"
            ));
        }
        Ok(ram[a..a + len].to_vec())
    }

    /// Send bytes to EE memory through SIF0, as a native module's sceSifSetDma does; they land
    /// in order with the IOP's other sends.
    pub fn send_to_ee(&mut self, dest: u32, data: Vec<u8>) {
        if data.is_empty() {
            return;
        }
        let size = data.len() as u32;
        let src = self.kernel.sifman.add_native_buffer(data);
        self.sif_set_dma(&[crate::kernel::sif::Transfer {
            src,
            dest,
            size,
            attr: 0,
        }]);
    }

    /// Answer a native server's call that returned [`Reply::Later`].
    pub fn complete_call(&mut self, token: u32, reply: &[u8]) {
        let Some(i) = self
            .kernel
            .sifcmd
            .pending
            .iter()
            .position(|(t, _)| *t == token)
        else {
            return;
        };
        let (_, call) = self.kernel.sifcmd.pending.remove(i);
        self.reply_native(&call, reply);
    }

    fn reply_native(&mut self, call: &PendingCall, reply: &[u8]) {
        let Some(slot) = self.modules.slots.iter().find(|s| s.data == call.sd) else {
            return;
        };
        let at = slot.reply;
        let mut r = reply.to_vec();
        r.resize((call.rsize as usize).div_ceil(4) * 4, 0);
        let n = r.len().min(
            slot.server
                .as_ref()
                .map_or(0, |s| s.buffer_size().max(0x100) as usize),
        );
        self.bus.write_ram(at, &r[..n]);
        sifcmd::send_reply(
            self,
            call,
            if reply.is_empty() && call.rsize == 0 {
                0
            } else {
                at
            },
        );
    }

    /// A vertical blank: the native servers' per-frame work.
    pub fn native_vblank(&mut self, vblank: u64) {
        for i in 0..self.modules.slots.len() {
            if !self.modules.slots[i].loaded {
                continue;
            }
            let Some(mut s) = self.modules.slots[i].server.take() else {
                continue;
            };
            s.vblank(self, vblank);
            self.modules.slots[i].server = Some(s);
        }
    }
}

/// Whether server data `sd` is a native server's.
pub fn is_native_server(iop: &Iop, sd: u32) -> bool {
    sd != 0 && iop.modules.slots.iter().any(|s| s.loaded && s.data == sd)
}

/// A CALL to a native server.
pub fn native_call(iop: &mut Iop, call: PendingCall, fno: u32, size: u32) -> Result<(), IopError> {
    let Some(i) = iop.modules.slots.iter().position(|s| s.data == call.sd) else {
        return Ok(());
    };
    let buf = iop.modules.slots[i].buf;
    let cap = iop.modules.slots[i]
        .server
        .as_ref()
        .map_or(0, |s| s.buffer_size());
    let mut args = vec![0; size.min(cap) as usize];
    iop.bus.read_ram(buf, &mut args);
    let Some(mut server) = iop.modules.slots[i].server.take() else {
        return Ok(());
    };
    let token = iop.kernel.sifcmd.next_token;
    iop.kernel.sifcmd.next_token += 1;
    let r = server.call(iop, fno, &args, token);
    let name = server.name().to_string();
    let sid = server.sid();
    iop.modules.slots[i].server = Some(server);
    match r {
        Ok(Reply::Now(bytes)) => iop.reply_native(&call, &bytes),
        Ok(Reply::Later(t)) => iop.kernel.sifcmd.pending.push((t, call)),
        Err(e) => {
            return Err(IopError::Native {
                module: format!("{name} (RPC server {sid:#010x}, function {fno})"),
                what: e,
            });
        }
    }
    Ok(())
}

/// A native continuation by tag.
pub fn continuation(iop: &mut Iop, tag: u32, data: [u32; 6]) -> Result<(), IopError> {
    use crate::kernel::{clib, sif, time};
    match tag {
        time::CONT_VBLANK_CHAIN => time::vblank_chain_continue(iop, data),
        clib::CONT_PRNT => clib::prnt_continue(iop, data),
        sif::CONT_DMA_CHAIN => sif::dma_chain_continue(iop, data),
        sifcmd::CONT_CMD_HANDLER => sifcmd::cmd_handler_continue(iop, data),
        sifcmd::CONT_EXEC => sifcmd::exec_continue(iop, data),
        crate::kernel::timrman::CONT_TIMER => crate::kernel::timrman::timer_continue(iop, data),
        crate::kernel::ioman::CONT_IOMAN => crate::kernel::ioman::op_continue(iop, data),
        fileio::CONT_FIO_LOOP => fileio::thread_loop(iop, data),
        fileio::CONT_FIO_CALL => fileio::call_returned(iop, data),
        cdvd::CONT_CALLBACK => cdvd::callback_returned(iop),
        libsd::CONT_CALLBACK => libsd::callback_returned(iop, data),
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
        "rom0" | "rom" => {
            let name = rest.split([';', ' ']).next().unwrap_or(rest);
            crate::romdir::select(&iop.modules.rom_images, name)
                .map(|f| f.data.clone())
                .or_else(|| fileio::RomDevice::file(rest).map(<[u8]>::to_vec))
                .ok_or(kerr::NOFILE)
        }
        d if d.starts_with("cdrom") && d[5..].bytes().all(|c| c.is_ascii_digit()) => {
            let unit = d[5..].parse().unwrap_or(0);
            let mut f = cdvd::device::open(iop, unit, rest.as_bytes()).map_err(|e| {
                if e == -fileio::errno::ENOENT {
                    kerr::NOFILE
                } else {
                    kerr::FILEERR
                }
            })?;
            if f.size as usize > crate::irx::MAX_IMAGE {
                eprintln!("piney: iop: {path}: larger than the IOP's memory");
                return Err(kerr::FILEERR);
            }
            let mut buf = vec![0u8; f.size as usize];
            let n = cdvd::device::read(iop, &mut f, &mut buf);
            if n < 0 {
                return Err(kerr::FILEERR);
            }
            buf.truncate(n as usize);
            Ok(buf)
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

/// A rom0 module piney answers natively (`rom0:NAME` or `rom:NAME`): its module id (or an
/// error), or `None` to load `path` as a file.
pub fn load_native(iop: &mut Iop, path: &str) -> Option<i32> {
    // ioman takes a device's unit from the digits before the colon, none meaning unit 0
    // ([`crate::kernel::ioman::split_path`]): `rom:LIBSD` is `rom0:LIBSD` on a console, and
    // homebrew spells it so.
    let name = path
        .strip_prefix("rom0:")
        .or_else(|| path.strip_prefix("rom:"))?;
    let name = name
        .split([';', ' '])
        .next()
        .unwrap_or(name)
        .to_ascii_uppercase();
    let found: Vec<usize> = (0..iop.modules.slots.len())
        .filter(|&i| {
            iop.modules.slots[i]
                .server
                .as_ref()
                .is_some_and(|x| x.modules().iter().any(|m| m.eq_ignore_ascii_case(&name)))
        })
        .collect();
    if let Some(&first) = found.first() {
        let id = iop.load_server(first);
        for &i in &found[1..] {
            iop.load_server(i);
        }
        return Some(id);
    }
    if QUIET_ROM_MODULES.contains(&name.as_str()) {
        return Some(iop.native_module(&name));
    }
    if name == "LIBSD" {
        return Some(libsd::load(iop));
    }
    if crate::romdir::select(&iop.modules.rom_images, &name).is_some() {
        // An IOPRP image's module: read and run as code.
        return None;
    }
    eprintln!(
        "piney: iop: {path}: piney has no native {name} and carries no rom; the load fails with KE_NOFILE"
    );
    Some(kerr::NOFILE)
}

/// The EE asked for a reboot (the RESET command): it happens after [`REBOOT_CYCLES`].
pub fn request_reboot(iop: &mut Iop, arg: &str) {
    iop.modules.reboot = Some((iop.cpu.cycles + REBOOT_CYCLES, arg.to_string()));
}

/// How long a reboot takes before the new IOP runs: 10 ms (a choice; a console takes longer
/// when it loads an IOPRP image from the disc).
pub const REBOOT_CYCLES: u64 = 368_640;
