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
                let path = cstr(args, 8, 252);
                return Err(format!(
                    "ELF_LOAD of {path} (loading an EE program through the IOP) is not served yet"
                ));
            }
            4 | 5 => reply(&[kerr::ILLEGAL_OBJECT as u32, 0]),
            other => return Err(format!("no such LOADFILE function {other}")),
        })
    }
}
