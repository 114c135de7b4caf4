//! The stdio library's output through ioman's fds, and iomanX's StdioInit.

use super::*;
/// StdioInit(1)'s `dummytty`: writes are taken and dropped, reads find nothing.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct DummyTty;

impl IoFile for DummyTty {
    fn saved(&self) -> Option<crate::modules::fileio::SavedFile> {
        Some(crate::modules::fileio::SavedFile::DummyTty)
    }
    fn read(&mut self, _buf: &mut [u8]) -> i32 {
        0
    }
    fn write(&mut self, data: &[u8], _stdout: &mut Vec<u8>) -> i32 {
        data.len() as i32
    }
    fn lseek(&mut self, _offset: i32, _whence: u32) -> i32 {
        0
    }
}

impl crate::Iop {
    /// What the stdio library's printf, puts and putchar (fd 1) and fdprintf/fdputs/fdputc
    /// write: the bytes go to the file `fd` is open on, as the console's stdio writes them
    /// through ioman. The tty is piney's output stream; StdioInit(1)'s dummytty and a closed fd
    /// drop them; a native file (a host file opened on fd 1) takes them. A guest driver's file or
    /// a card's or disc's cannot be written from inside a native call: the bytes go to the output
    /// stream, with one line saying so.
    pub fn stdio_write(&mut self, fd: u32, data: &[u8]) {
        let Some(file) = self
            .modules
            .ioman
            .files
            .get_mut(fd as usize)
            .and_then(|f| f.as_mut())
        else {
            return;
        };
        match &mut file.handle {
            Handle::Native(h) => {
                h.write(data, &mut self.out);
            }
            _ => {
                self.modules.ioman.log_once(
                    format!("stdio-fd{fd}"),
                    format!("stdio output to fd {fd}, which is not a native file, goes to piney's output"),
                );
                self.out.extend_from_slice(data);
            }
        }
    }
}

/// StdioInit(mode): fds 0 and 1 closed and opened again on the tty (mode 0) or on `dummytty`,
/// whose output goes nowhere (mode 1); other modes change nothing (iomanX's StdioInit).
pub(super) fn stdio_init(iop: &mut crate::Iop) -> Result<Ret, IopError> {
    let mode = iop.arg(0);
    let io = &mut iop.modules.ioman;
    match mode {
        0 => {
            io.files[0] = Some(tty_file(flags::O_RDONLY | flags::O_WRONLY));
            io.files[1] = Some(tty_file(flags::O_WRONLY));
        }
        1 => {
            for (fd, m) in [(0, flags::O_RDONLY | flags::O_WRONLY), (1, flags::O_WRONLY)] {
                io.files[fd] = Some(File {
                    mode: m,
                    dtype: IOP_DT_CHAR,
                    handle: Handle::Native(Box::new(DummyTty)),
                });
            }
        }
        _ => {}
    }
    Ok(Ret::V(0))
}
