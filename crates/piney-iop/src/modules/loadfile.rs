//! LOADFILE (sid 0x8000_0006), served natively: the service ps2sdk's SifLoadModule,
//! SifLoadModuleBuffer, SifStopModule, SifUnloadModule and SifSearchModuleBy* call.
//!
//! Argument blocks (ps2sdk's `loadfile-common.h`; replies are the first two words):
//! - 0 MOD_LOAD { arg_len, 0, `path[252]`, `args[252]` } -> { module id or error, start result };
//! - 6 MOD_BUF_LOAD { IOP address, arg_len, 252 unused, `args[252]` } -> the same;
//! - 7 MOD_STOP { id, arg_len, ..., args } -> { result, stop result };
//! - 8 MOD_UNLOAD { id } -> { result };
//! - 9 SEARCH_MOD_BY_NAME { 0, 0, `name[252]` } -> { id or KE_UNKNOWN_MODULE };
//! - 10 SEARCH_MOD_BY_ADDRESS { address } -> { id };
//! - 2 SET_ADDR / 3 GET_ADDR { IOP address, type (0 byte, 1 halfword, 2 word), value };
//! - 0xff GET_VERSION -> the module's version.
//! - 1 ELF_LOAD { epc, gp, `path[252]`, `secname[252]` } -> { entry, gp, 0, 0 } or
//!   { 0, .., .., error }: an EE program's loadable segments sent into EE memory.
//!
//! A load that starts a module answers once the module's entry returned on the loader thread
//! (as the console's LOADFILE waits for modload).

use super::fileio::{put_word, word};
use super::{NativeServer, Reply};
use crate::Iop;
use crate::kernel::kerr;

/// LOADFILE's sid.
pub const LOADFILE_SID: u32 = 0x8000_0006;

/// The service.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct LoadFile;

fn cstr(b: &[u8], off: usize, max: usize) -> String {
    let s = b.get(off..(off + max).min(b.len())).unwrap_or(&[]);
    let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
    String::from_utf8_lossy(&s[..end]).into_owned()
}

fn reply(words: &[u32]) -> Reply {
    let mut r = Vec::with_capacity(4 * words.len());
    for (i, w) in words.iter().enumerate() {
        put_word(&mut r, 4 * i, *w);
    }
    Reply::Now(r)
}

fn args_of(b: &[u8], len: u32) -> Vec<u8> {
    let len = (len as usize).min(252);
    b.get(260..260 + len).unwrap_or(&[]).to_vec()
}

impl NativeServer for LoadFile {
    crate::whole_server_state!();

    fn sid(&self) -> u32 {
        LOADFILE_SID
    }
    fn name(&self) -> &str {
        "LOADFILE"
    }
    fn buffer_size(&self) -> u32 {
        0x200
    }
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }
    fn call(&mut self, iop: &mut Iop, f: u32, args: &[u8], token: u32) -> Result<Reply, String> {
        Ok(match f {
            0 => {
                let path = cstr(args, 8, 252);
                let a = args_of(args, word(args, 0));
                let id = iop.load_path(&path);
                if id < 0 {
                    return Ok(reply(&[id as u32, 0]));
                }
                iop.request_start_token(id, &path, &a, token);
                Reply::Later(token)
            }
            6 => {
                let at = word(args, 0);
                let a = args_of(args, word(args, 4));
                let id = iop.load_buffer(at);
                if id < 0 {
                    return Ok(reply(&[id as u32, 0]));
                }
                let name = format!("(buffer at {at:#010x})");
                iop.request_start_token(id, &name, &a, token);
                Reply::Later(token)
            }
            7 => {
                // SifStopModule(id, arglen, args): answered once the entry ran.
                let id = word(args, 0) as i32;
                let e = iop.stop_check(id);
                if e < 0 {
                    return Ok(reply(&[e as u32, 0]));
                }
                let a = args_of(args, word(args, 4));
                iop.request_stop(id, &a, None, Some(token));
                Reply::Later(token)
            }
            8 => {
                let id = word(args, 0) as i32;
                reply(&[iop.unload_module(id) as u32])
            }
            9 => {
                let name = cstr(args, 8, 252);
                reply(&[iop.search_module(&name) as u32])
            }
            10 => {
                let a = word(args, 0) & 0x1fff_ffff;
                let id = iop
                    .kernel
                    .loadcore
                    .module_at(a)
                    .map_or(kerr::UNKNOWN_MODULE, |m| m.id);
                reply(&[id as u32])
            }
            2 => {
                let (a, ty, v) = (word(args, 0), word(args, 4), word(args, 8));
                match ty {
                    0 => iop.bus.write_ram(a, &[v as u8]),
                    1 => iop.bus.set_ram_u16(a, v as u16),
                    _ => iop.bus.set_ram_u32(a, v),
                }
                reply(&[0])
            }
            3 => {
                let (a, ty) = (word(args, 0), word(args, 4));
                let v = match ty {
                    0 => iop.bus.ram_u32(a) & 0xff,
                    1 => iop.bus.ram_u16(a) as u32,
                    _ => iop.bus.ram_u32(a),
                };
                reply(&[0, ty, v])
            }
            0xff => reply(&[0x0101]),
            1 => {
                // ELF_LOAD { epc, gp, path[252], secname[252] }: the EE program's loadable
                // segments (PT_LOAD with file bytes) sent into EE memory by SIF DMA as they are in
                // the file (LOADFILE clears no .bss: the program's crt0 does), a segment below
                // 0x80000 (the EE kernel's) refused; the answer { entry, gp 0, 0 } or
                // { 0, .., .., error }. Only "all" sections: loading one named section is not
                // served.
                let path = cstr(args, 8, 252);
                let section = cstr(args, 260, 252);
                if section != "all" {
                    return Err(format!(
                        "ELF_LOAD of section \"{section}\" of {path} (a single section) is not served; only \"all\""
                    ));
                }
                match elf_segments(iop, &path) {
                    Ok((entry, segments)) => {
                        for (vaddr, bytes) in segments {
                            iop.send_to_ee(vaddr, bytes);
                        }
                        reply(&[entry, 0, 0, 0])
                    }
                    Err(e) => reply(&[0, 0, 0, e as u32]),
                }
            }
            4 | 5 => reply(&[kerr::ILLEGAL_OBJECT as u32, 0]),
            other => return Err(format!("no such LOADFILE function {other}")),
        })
    }
}

/// A loadable segment: its EE address and its bytes in the file.
type Segment = (u32, Vec<u8>);

/// The entry and the loadable segments (EE address, file bytes) of the EE ELF at `path`, or the
/// console's error: KE_NOFILE when it cannot be opened, KE_ILLEGAL_OBJECT when it is not a
/// 32-bit little-endian MIPS executable or a segment lies below 0x80000.
fn elf_segments(iop: &mut Iop, path: &str) -> Result<(u32, Vec<Segment>), i32> {
    let image = super::read_file(iop, path)?;
    let bad = kerr::ILLEGAL_OBJECT;
    let u16_at = |o: usize| {
        image
            .get(o..o + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
    };
    let u32_at = |o: usize| {
        image
            .get(o..o + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    // e_ident: magic, ELFCLASS32, ELFDATA2LSB; e_type 2 (executable), e_machine 8 (MIPS).
    if image.get(0..6) != Some(&[0x7f, b'E', b'L', b'F', 1, 1][..])
        || u16_at(16) != Some(2)
        || u16_at(18) != Some(8)
    {
        return Err(bad);
    }
    let entry = u32_at(24).ok_or(bad)?;
    let phoff = u32_at(28).ok_or(bad)? as usize;
    let phentsize = u16_at(42).ok_or(bad)? as usize;
    let phnum = u16_at(44).ok_or(bad)? as usize;
    if phentsize < 32 {
        return Err(bad);
    }
    let mut segments = Vec::new();
    for i in 0..phnum {
        let at = phoff.checked_add(i * phentsize).ok_or(bad)?;
        let (ty, offset, vaddr, filesz) = (
            u32_at(at).ok_or(bad)?,
            u32_at(at + 4).ok_or(bad)? as usize,
            u32_at(at + 8).ok_or(bad)?,
            u32_at(at + 16).ok_or(bad)? as usize,
        );
        if ty != 1 || filesz == 0 {
            continue;
        }
        if vaddr & 0x1fff_ffff < 0x8_0000 {
            return Err(bad);
        }
        let bytes = image
            .get(offset..offset.checked_add(filesz).ok_or(bad)?)
            .ok_or(bad)?;
        segments.push((vaddr, bytes.to_vec()));
    }
    Ok((entry, segments))
}
