//! sysclib (the C library) and stdio (printf and friends, to the guest's output stream).
//!
//! The formatter is the console's `prnt` as modules see it: `%d %i %u %x %X %o %c %s %p %%`
//! with the flags `- + space # 0`, a width and a precision (digits or `*`), and the `h`, `hh`,
//! `l`, `ll` length modifiers; `%p` prints the pointer in lower-case hex without a prefix or
//! padding (ps2autotests libc/sprintf: `%p` of 0x01234567 gives `1234567`). The IOP has no
//! FPU: `%f`, `%e` and `%g` consume a double (8-byte aligned) and print nothing, as a
//! formatter without float support does. Strings and buffers are read from and written to
//! guest RAM directly, exactly as the C functions would (a NULL pointer reads the kernel's
//! word at address 0).

use super::{Cont, Iop, IopError, LibDef, Ret};

/// Where a formatter's arguments come from.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub enum Args {
    /// The native call's own arguments from index `n` on (registers, then the stack).
    Call(usize),
    /// A va_list: consecutive words in guest memory.
    Mem(u32),
}

impl Args {
    fn word(&mut self, iop: &mut Iop) -> u32 {
        match self {
            Args::Call(n) => {
                let v = iop.arg(*n);
                *n += 1;
                v
            }
            Args::Mem(a) => {
                let v = iop.bus.ram_u32(*a);
                *a = a.wrapping_add(4);
                v
            }
        }
    }

    fn dword(&mut self, iop: &mut Iop) -> u64 {
        // o32: 64-bit arguments are 8-byte aligned (an even register or stack slot).
        match self {
            Args::Call(n) => {
                if *n % 2 == 1 {
                    *n += 1;
                }
            }
            Args::Mem(a) => *a = (*a + 7) & !7,
        }
        let lo = self.word(iop) as u64;
        let hi = self.word(iop) as u64;
        lo | (hi << 32)
    }
}

/// Format `fmt` (a guest string) with `args` into bytes.
pub fn format(iop: &mut Iop, fmt: u32, mut args: Args) -> Vec<u8> {
    let f = iop.bus.ram_cbytes(fmt, 1 << 20);
    let mut out = Vec::with_capacity(f.len());
    let mut i = 0;
    while i < f.len() {
        let c = f[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let (mut left, mut plus, mut space, mut alt, mut zero) =
            (false, false, false, false, false);
        while i < f.len() {
            match f[i] {
                b'-' => left = true,
                b'+' => plus = true,
                b' ' => space = true,
                b'#' => alt = true,
                b'0' => zero = true,
                _ => break,
            }
            i += 1;
        }
        let mut width: usize = 0;
        if i < f.len() && f[i] == b'*' {
            let w = args.word(iop) as i32;
            if w < 0 {
                left = true;
            }
            width = w.unsigned_abs() as usize;
            i += 1;
        } else {
            while i < f.len() && f[i].is_ascii_digit() {
                width = width
                    .saturating_mul(10)
                    .saturating_add((f[i] - b'0') as usize);
                i += 1;
            }
        }
        let mut prec: Option<usize> = None;
        if i < f.len() && f[i] == b'.' {
            i += 1;
            if i < f.len() && f[i] == b'*' {
                let p = args.word(iop) as i32;
                prec = (p >= 0).then_some(p as usize);
                i += 1;
            } else {
                let mut p = 0usize;
                while i < f.len() && f[i].is_ascii_digit() {
                    p = p.saturating_mul(10).saturating_add((f[i] - b'0') as usize);
                    i += 1;
                }
                prec = Some(p);
            }
        }
        // Widths beyond any buffer a module has are clamped.
        width = width.min(4096);
        prec = prec.map(|p| p.min(4096));
        let mut long = 0;
        let mut short = 0;
        while i < f.len() && matches!(f[i], b'h' | b'l' | b'L' | b'q' | b'z' | b't' | b'j') {
            match f[i] {
                b'h' => short += 1,
                b'l' | b'L' | b'q' => long += 1,
                _ => {}
            }
            i += 1;
        }
        let Some(&conv) = f.get(i) else {
            break;
        };
        i += 1;
        let mut body: Vec<u8>;
        let mut sign: &[u8] = b"";
        let mut prefix: &[u8] = b"";
        let numeric = matches!(conv, b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'p');
        match conv {
            b'd' | b'i' => {
                let v: i64 = if long >= 2 {
                    args.dword(iop) as i64
                } else {
                    let w = args.word(iop);
                    match short {
                        1 => w as u16 as i16 as i64,
                        s if s >= 2 => w as u8 as i8 as i64,
                        _ => w as i32 as i64,
                    }
                };
                if v < 0 {
                    sign = b"-";
                } else if plus {
                    sign = b"+";
                } else if space {
                    sign = b" ";
                }
                body = v.unsigned_abs().to_string().into_bytes();
            }
            b'u' | b'x' | b'X' | b'o' | b'p' => {
                let v: u64 = if long >= 2 && conv != b'p' {
                    args.dword(iop)
                } else {
                    let w = args.word(iop);
                    match short {
                        1 if conv != b'p' => w as u16 as u64,
                        s if s >= 2 && conv != b'p' => w as u8 as u64,
                        _ => w as u64,
                    }
                };
                body = match conv {
                    b'u' => v.to_string().into_bytes(),
                    b'x' | b'p' => format!("{v:x}").into_bytes(),
                    b'X' => format!("{v:X}").into_bytes(),
                    _ => format!("{v:o}").into_bytes(),
                };
                if alt && v != 0 {
                    prefix = match conv {
                        b'x' => b"0x",
                        b'X' => b"0X",
                        b'o' => b"0",
                        _ => b"",
                    };
                }
            }
            b'c' => {
                body = vec![args.word(iop) as u8];
            }
            b's' => {
                let p = args.word(iop);
                let max = prec.unwrap_or(1 << 20);
                body = iop.bus.ram_cbytes(p, max);
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                args.dword(iop);
                continue;
            }
            b'%' => {
                out.push(b'%');
                continue;
            }
            b'n' => {
                let p = args.word(iop);
                iop.bus.set_ram_u32(p, out.len() as u32);
                continue;
            }
            other => {
                // An unknown conversion is printed as is.
                out.push(b'%');
                out.push(other);
                continue;
            }
        }
        if numeric && let Some(p) = prec {
            if p == 0 && body == b"0" {
                body.clear();
            }
            while body.len() < p {
                body.insert(0, b'0');
            }
        }
        let len = sign.len() + prefix.len() + body.len();
        let pad = width.saturating_sub(len);
        if left {
            out.extend_from_slice(sign);
            out.extend_from_slice(prefix);
            out.extend_from_slice(&body);
            out.extend(std::iter::repeat_n(b' ', pad));
        } else if zero && numeric && prec.is_none() {
            out.extend_from_slice(sign);
            out.extend_from_slice(prefix);
            out.extend(std::iter::repeat_n(b'0', pad));
            out.extend_from_slice(&body);
        } else {
            out.extend(std::iter::repeat_n(b' ', pad));
            out.extend_from_slice(sign);
            out.extend_from_slice(prefix);
            out.extend_from_slice(&body);
        }
    }
    out
}

/// The text of a printf-style call whose format is argument `fmt_arg`.
pub fn format_call(iop: &mut Iop, fmt_arg: usize) -> Vec<u8> {
    let fmt = iop.arg(fmt_arg);
    format(iop, fmt, Args::Call(fmt_arg + 1))
}

/// printf with the format at argument `fmt_arg` and the values after it, written to fd 1
/// (printf) or to the fd in argument 0 (fdprintf), as stdio writes through ioman. Returns the
/// number of bytes written.
pub fn printf_to_out(iop: &mut Iop, fmt_arg: usize) -> Result<u32, IopError> {
    let s = format_call(iop, fmt_arg);
    let fd = if fmt_arg == 0 { 1 } else { iop.arg(0) };
    iop.stdio_write(fd, &s);
    Ok(s.len() as u32)
}

fn printf(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(printf_to_out(iop, 0)?))
}

fn putchar(iop: &mut Iop) -> Result<Ret, IopError> {
    let c = iop.arg(0);
    iop.stdio_write(1, &[c as u8]);
    Ok(Ret::V(c & 0xff))
}

fn puts(iop: &mut Iop) -> Result<Ret, IopError> {
    let s = iop.arg(0);
    let mut b = iop.bus.ram_cbytes(s, 1 << 20);
    b.push(b'\n');
    iop.stdio_write(1, &b);
    Ok(Ret::V(0))
}

fn getchar(_: &mut Iop) -> Result<Ret, IopError> {
    // No console input on the IOP: end of file.
    Ok(Ret::V(u32::MAX))
}

fn fdprintf(iop: &mut Iop) -> Result<Ret, IopError> {
    // fdprintf(fd, fmt, ...).
    Ok(Ret::V(printf_to_out(iop, 1)?))
}

fn vfdprintf(iop: &mut Iop) -> Result<Ret, IopError> {
    let (fd, fmt, ap) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let s = format(iop, fmt, Args::Mem(ap));
    iop.stdio_write(fd, &s);
    Ok(Ret::V(s.len() as u32))
}

fn fdputc(iop: &mut Iop) -> Result<Ret, IopError> {
    // fdputc(c, fd).
    let (c, fd) = (iop.arg(0), iop.arg(1));
    iop.stdio_write(fd, &[c as u8]);
    Ok(Ret::V(c & 0xff))
}

fn fdputs(iop: &mut Iop) -> Result<Ret, IopError> {
    // fdputs(s, fd).
    let (s, fd) = (iop.arg(0), iop.arg(1));
    let b = iop.bus.ram_cbytes(s, 1 << 20);
    iop.stdio_write(fd, &b);
    Ok(Ret::V(0))
}

/// stdio.
pub const STDIO: LibDef = LibDef {
    name: "stdio",
    version: 0x0102,
    funcs: &[
        (4, "printf", printf),
        (5, "getchar", getchar),
        (6, "putchar", putchar),
        (7, "puts", puts),
        (9, "fdprintf", fdprintf),
        (10, "fdgetc", getchar),
        (11, "fdputc", fdputc),
        (12, "fdputs", fdputs),
        (14, "vfdprintf", vfdprintf),
    ],
};

// ---- sysclib ----

fn b(iop: &Iop, a: u32) -> u8 {
    let mut x = [0];
    iop.bus.read_ram(a, &mut x);
    x[0]
}

fn set_b(iop: &mut Iop, a: u32, v: u8) {
    iop.bus.write_ram(a, &[v]);
}

fn strlen_at(iop: &Iop, a: u32) -> u32 {
    let mut n = 0;
    while b(iop, a.wrapping_add(n)) != 0 && n < (1 << 21) {
        n += 1;
    }
    n
}

fn memcpy(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, s, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    copy(iop, d, s, n);
    Ok(Ret::V(d))
}

/// Copy `n` bytes of guest RAM, correct for overlaps (memmove).
fn copy(iop: &mut Iop, d: u32, s: u32, n: u32) {
    let n = n.min(crate::mem::RAM_SIZE as u32);
    let mut buf = vec![0; n as usize];
    iop.bus.read_ram(s, &mut buf);
    iop.bus.write_ram(d, &buf);
}

fn memmove(iop: &mut Iop) -> Result<Ret, IopError> {
    memcpy(iop)
}

fn bcopy(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, d, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    copy(iop, d, s, n);
    Ok(Ret::V(0))
}

fn fill(iop: &mut Iop, d: u32, c: u8, n: u32) {
    let n = n.min(crate::mem::RAM_SIZE as u32);
    iop.bus.write_ram(d, &vec![c; n as usize]);
}

fn memset(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, c, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    fill(iop, d, c as u8, n);
    Ok(Ret::V(d))
}

fn bzero(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, n) = (iop.arg(0), iop.arg(1));
    fill(iop, d, 0, n);
    Ok(Ret::V(0))
}

fn memcmp(iop: &mut Iop) -> Result<Ret, IopError> {
    let (x, y, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    for i in 0..n.min(crate::mem::RAM_SIZE as u32) {
        let (a, c) = (b(iop, x + i), b(iop, y + i));
        if a != c {
            return Ok(Ret::V((a as i32 - c as i32) as u32));
        }
    }
    Ok(Ret::V(0))
}

fn memchr(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, c, n) = (iop.arg(0), iop.arg(1) as u8, iop.arg(2));
    for i in 0..n.min(crate::mem::RAM_SIZE as u32) {
        if b(iop, s + i) == c {
            return Ok(Ret::V(s + i));
        }
    }
    Ok(Ret::V(0))
}

fn strlen(iop: &mut Iop) -> Result<Ret, IopError> {
    let s = iop.arg(0);
    Ok(Ret::V(strlen_at(iop, s)))
}

fn strcpy(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, s) = (iop.arg(0), iop.arg(1));
    let n = strlen_at(iop, s);
    copy(iop, d, s, n + 1);
    Ok(Ret::V(d))
}

fn strncpy(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, s, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let len = strlen_at(iop, s).min(n);
    copy(iop, d, s, len);
    if len < n {
        fill(iop, d + len, 0, n - len);
    }
    Ok(Ret::V(d))
}

fn strcat(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, s) = (iop.arg(0), iop.arg(1));
    let end = d + strlen_at(iop, d);
    let n = strlen_at(iop, s);
    copy(iop, end, s, n + 1);
    Ok(Ret::V(d))
}

fn strncat(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, s, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let end = d + strlen_at(iop, d);
    let len = strlen_at(iop, s).min(n);
    copy(iop, end, s, len);
    set_b(iop, end + len, 0);
    Ok(Ret::V(d))
}

fn cmp(iop: &Iop, x: u32, y: u32, n: u32) -> i32 {
    for i in 0..n {
        let (a, c) = (b(iop, x + i), b(iop, y + i));
        if a != c {
            return a as i32 - c as i32;
        }
        if a == 0 {
            return 0;
        }
    }
    0
}

fn strcmp(iop: &mut Iop) -> Result<Ret, IopError> {
    let (x, y) = (iop.arg(0), iop.arg(1));
    Ok(Ret::V(cmp(iop, x, y, u32::MAX) as u32))
}

fn strncmp(iop: &mut Iop) -> Result<Ret, IopError> {
    let (x, y, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    Ok(Ret::V(cmp(iop, x, y, n) as u32))
}

fn strchr(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, c) = (iop.arg(0), iop.arg(1) as u8);
    let mut i = 0;
    loop {
        let x = b(iop, s + i);
        if x == c {
            return Ok(Ret::V(s + i));
        }
        if x == 0 || i > (1 << 21) {
            return Ok(Ret::V(0));
        }
        i += 1;
    }
}

fn strrchr(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, c) = (iop.arg(0), iop.arg(1) as u8);
    let n = strlen_at(iop, s);
    for i in (0..=n).rev() {
        if b(iop, s + i) == c {
            return Ok(Ret::V(s + i));
        }
    }
    Ok(Ret::V(0))
}

fn set_of(iop: &Iop, set: u32) -> Vec<u8> {
    iop.bus.ram_cbytes(set, 4096)
}

fn strspn_common(iop: &mut Iop, inside: bool) -> Result<Ret, IopError> {
    let (s, set) = (iop.arg(0), iop.arg(1));
    let set = set_of(iop, set);
    let mut n = 0;
    loop {
        let c = b(iop, s + n);
        if c == 0 || set.contains(&c) != inside {
            return Ok(Ret::V(n));
        }
        n += 1;
    }
}

fn strspn(iop: &mut Iop) -> Result<Ret, IopError> {
    strspn_common(iop, true)
}

fn strcspn(iop: &mut Iop) -> Result<Ret, IopError> {
    strspn_common(iop, false)
}

fn strpbrk(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, set) = (iop.arg(0), iop.arg(1));
    let set = set_of(iop, set);
    let mut i = 0;
    loop {
        let c = b(iop, s + i);
        if c == 0 {
            return Ok(Ret::V(0));
        }
        if set.contains(&c) {
            return Ok(Ret::V(s + i));
        }
        i += 1;
    }
}

fn strstr(iop: &mut Iop) -> Result<Ret, IopError> {
    let (h, n) = (iop.arg(0), iop.arg(1));
    let hay = iop.bus.ram_cbytes(h, 1 << 21);
    let needle = iop.bus.ram_cbytes(n, 1 << 21);
    if needle.is_empty() {
        return Ok(Ret::V(h));
    }
    Ok(Ret::V(
        hay.windows(needle.len())
            .position(|w| w == needle.as_slice())
            .map_or(0, |p| h + p as u32),
    ))
}

/// strtok's and strtok_r's shared step: the token starting at `s` (or the saved position when
/// `s` is NULL); returns (token or 0, the next saved position).
fn tok(iop: &mut Iop, s: u32, delim: u32, saved: u32) -> (u32, u32) {
    let mut p = if s == 0 { saved } else { s };
    if p == 0 {
        return (0, 0);
    }
    let set = set_of(iop, delim);
    while b(iop, p) != 0 && set.contains(&b(iop, p)) {
        p += 1;
    }
    if b(iop, p) == 0 {
        return (0, 0);
    }
    let start = p;
    while b(iop, p) != 0 && !set.contains(&b(iop, p)) {
        p += 1;
    }
    if b(iop, p) == 0 {
        return (start, 0);
    }
    set_b(iop, p, 0);
    (start, p + 1)
}

fn strtok(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, delim) = (iop.arg(0), iop.arg(1));
    let saved = iop.modules.strtok_saved;
    let (t, next) = tok(iop, s, delim, saved);
    iop.modules.strtok_saved = next;
    Ok(Ret::V(t))
}

fn strtok_r(iop: &mut Iop) -> Result<Ret, IopError> {
    let (s, delim, savep) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let saved = iop.bus.ram_u32(savep);
    let (t, next) = tok(iop, s, delim, saved);
    iop.bus.set_ram_u32(savep, next);
    Ok(Ret::V(t))
}

/// strtol/strtoul: base 0 picks 8, 10 or 16 from the prefix; returns (value, end).
fn parse_int(iop: &Iop, s: u32, base: u32, signed: bool) -> (u32, u32) {
    let mut p = s;
    while matches!(b(iop, p), b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        p += 1;
    }
    let mut neg = false;
    match b(iop, p) {
        b'-' => {
            neg = true;
            p += 1;
        }
        b'+' => p += 1,
        _ => {}
    }
    let mut base = base;
    if (base == 0 || base == 16) && b(iop, p) == b'0' && matches!(b(iop, p + 1), b'x' | b'X') {
        p += 2;
        base = 16;
    } else if base == 0 {
        base = if b(iop, p) == b'0' { 8 } else { 10 };
    }
    let start = p;
    let mut acc: u64 = 0;
    let mut over = false;
    loop {
        let c = b(iop, p);
        let d = match c {
            b'0'..=b'9' => (c - b'0') as u32,
            b'a'..=b'z' => (c - b'a' + 10) as u32,
            b'A'..=b'Z' => (c - b'A' + 10) as u32,
            _ => break,
        };
        if d >= base {
            break;
        }
        acc = acc * base as u64 + d as u64;
        if acc > u32::MAX as u64 {
            over = true;
            acc = u32::MAX as u64;
        }
        p += 1;
    }
    if p == start {
        return (0, s);
    }
    let v = if signed {
        let lim = if neg { 0x8000_0000u64 } else { 0x7fff_ffff };
        if over || acc > lim {
            if neg { 0x8000_0000 } else { 0x7fff_ffff }
        } else if neg {
            (acc as u32).wrapping_neg()
        } else {
            acc as u32
        }
    } else if over {
        u32::MAX
    } else if neg {
        (acc as u32).wrapping_neg()
    } else {
        acc as u32
    };
    (v, p)
}

fn strtol_common(iop: &mut Iop, signed: bool) -> Result<Ret, IopError> {
    let (s, endp, base) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let (v, end) = parse_int(iop, s, base, signed);
    if endp != 0 {
        iop.bus.set_ram_u32(endp, end);
    }
    Ok(Ret::V(v))
}

fn strtol(iop: &mut Iop) -> Result<Ret, IopError> {
    strtol_common(iop, true)
}

fn strtoul(iop: &mut Iop) -> Result<Ret, IopError> {
    strtol_common(iop, false)
}

fn atob(iop: &mut Iop) -> Result<Ret, IopError> {
    // atob(str, int *out): parse a number (base from the prefix) into *out; returns the end.
    let (s, out) = (iop.arg(0), iop.arg(1));
    let (v, end) = parse_int(iop, s, 0, true);
    if out != 0 {
        iop.bus.set_ram_u32(out, v);
    }
    Ok(Ret::V(end))
}

fn sprintf(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, fmt) = (iop.arg(0), iop.arg(1));
    let s = format(iop, fmt, Args::Call(2));
    iop.bus.write_ram(d, &s);
    set_b(iop, d + s.len() as u32, 0);
    Ok(Ret::V(s.len() as u32))
}

fn vsprintf(iop: &mut Iop) -> Result<Ret, IopError> {
    let (d, fmt, ap) = (iop.arg(0), iop.arg(1), iop.arg(2));
    let s = format(iop, fmt, Args::Mem(ap));
    iop.bus.write_ram(d, &s);
    set_b(iop, d + s.len() as u32, 0);
    Ok(Ret::V(s.len() as u32))
}

/// Continuation tag: prnt is handing characters to its callback (data: callback, context,
/// buffer address in the scratch area, index, length, caller's ra).
pub const CONT_PRNT: u32 = 0x7072_0001;

fn prnt(iop: &mut Iop) -> Result<Ret, IopError> {
    // prnt(callback, context, fmt, va_list): the formatted characters go one by one to
    // callback(context, c).
    let (cb, ctx, fmt, ap) = (iop.arg(0), iop.arg(1), iop.arg(2), iop.arg(3));
    let s = format(iop, fmt, Args::Mem(ap));
    let ra = iop.native_ret;
    let sp = iop.cpu.gpr[29];
    iop.modules.prnt_buffers.push(s);
    prnt_step(iop, [cb, ctx, 0, 0, ra, sp])
}

fn prnt_step(iop: &mut Iop, data: [u32; 6]) -> Result<Ret, IopError> {
    let [cb, ctx, i, _, ra, sp] = data;
    let buf = iop.modules.prnt_buffers.last().cloned().unwrap_or_default();
    iop.cpu.gpr[29] = sp;
    iop.native_ret = ra;
    if i as usize >= buf.len() {
        iop.modules.prnt_buffers.pop();
        return Ok(Ret::V(buf.len() as u32));
    }
    let c = buf[i as usize] as u32;
    let cont = Cont::Module {
        tag: CONT_PRNT,
        data: [cb, ctx, i + 1, 0, ra, sp],
    };
    iop.call_guest_then(cb, &[ctx, c], cont);
    Ok(Ret::Done)
}

/// prnt's callback returned: hand it the next character.
pub fn prnt_continue(iop: &mut Iop, data: [u32; 6]) -> Result<(), IopError> {
    if let Ret::V(v) = prnt_step(iop, data)? {
        iop.cpu.gpr[2] = v;
        let ra = iop.native_ret;
        iop.cpu.set_pc(ra);
    }
    Ok(())
}

fn toupper(iop: &mut Iop) -> Result<Ret, IopError> {
    let c = iop.arg(0) as u8;
    Ok(Ret::V(c.to_ascii_uppercase() as u32))
}

fn tolower(iop: &mut Iop) -> Result<Ret, IopError> {
    let c = iop.arg(0) as u8;
    Ok(Ret::V(c.to_ascii_lowercase() as u32))
}

/// The console's ctype classes: 0x01 upper, 0x02 lower, 0x04 digit, 0x08 space, 0x10 punctuation
/// (and the space character), 0x20 control, 0x40 hex letter.
pub fn ctype(c: u8) -> u8 {
    match c {
        9..=13 => 0x08,
        b' ' => 0x18,
        0..=8 | 14..=31 | 127 => 0x20,
        b'0'..=b'9' => 0x04,
        b'A'..=b'F' => 0x41,
        b'G'..=b'Z' => 0x01,
        b'a'..=b'f' => 0x42,
        b'g'..=b'z' => 0x02,
        33..=126 => 0x10,
        _ => 0,
    }
}

fn look_ctype(iop: &mut Iop) -> Result<Ret, IopError> {
    let c = iop.arg(0) as u8;
    Ok(Ret::V(if c < 128 { ctype(c) as u32 } else { 0 }))
}

fn get_ctype_table(iop: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(iop.kernel.loadcore.ctype_table))
}

fn setjmp(iop: &mut Iop) -> Result<Ret, IopError> {
    // jmp_buf: ra, s0..s7, sp, fp, gp (12 words).
    let env = iop.arg(0);
    let r = iop.cpu.gpr;
    let words = [
        r[31], r[16], r[17], r[18], r[19], r[20], r[21], r[22], r[23], r[29], r[30], r[28],
    ];
    for (i, w) in words.iter().enumerate() {
        iop.bus.set_ram_u32(env.wrapping_add(4 * i as u32), *w);
    }
    Ok(Ret::V(0))
}

fn longjmp(iop: &mut Iop) -> Result<Ret, IopError> {
    let (env, val) = (iop.arg(0), iop.arg(1));
    let w = |i: u32| iop.bus.ram_u32(env + 4 * i);
    let ra = w(0);
    let s: Vec<u32> = (1..9).map(w).collect();
    let (sp, fp, gp) = (w(9), w(10), w(11));
    for (i, v) in s.into_iter().enumerate() {
        iop.cpu.gpr[16 + i] = v;
    }
    iop.cpu.gpr[29] = sp;
    iop.cpu.gpr[30] = fp;
    iop.cpu.gpr[28] = gp;
    iop.cpu.gpr[31] = ra;
    iop.cpu.gpr[2] = if val == 0 { 1 } else { val };
    iop.cpu.set_pc(ra);
    Ok(Ret::Done)
}

fn wmemcopy(iop: &mut Iop) -> Result<Ret, IopError> {
    // _wmemcopy(dst, src, bytes): a word copy.
    let (d, s, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    copy(iop, d, s, n & !3);
    Ok(Ret::V(d))
}

fn wmemset(iop: &mut Iop) -> Result<Ret, IopError> {
    // _wmemset(dst, word, bytes).
    let (d, c, n) = (iop.arg(0), iop.arg(1), iop.arg(2));
    for i in (0..(n & !3).min(crate::mem::RAM_SIZE as u32)).step_by(4) {
        iop.bus.set_ram_u32(d + i, c);
    }
    Ok(Ret::V(d))
}

fn ret_neg1(_: &mut Iop) -> Result<Ret, IopError> {
    Ok(Ret::V(u32::MAX))
}

/// sysclib.
pub const SYSCLIB: LibDef = LibDef {
    name: "sysclib",
    version: 0x0101,
    funcs: &[
        (4, "setjmp", setjmp),
        (5, "longjmp", longjmp),
        (6, "toupper", toupper),
        (7, "tolower", tolower),
        (8, "look_ctype_table", look_ctype),
        (9, "get_ctype_table", get_ctype_table),
        (10, "memchr", memchr),
        (11, "memcmp", memcmp),
        (12, "memcpy", memcpy),
        (13, "memmove", memmove),
        (14, "memset", memset),
        (15, "bcmp", memcmp),
        (16, "bcopy", bcopy),
        (17, "bzero", bzero),
        (18, "prnt", prnt),
        (19, "sprintf", sprintf),
        (20, "strcat", strcat),
        (21, "strchr", strchr),
        (22, "strcmp", strcmp),
        (23, "strcpy", strcpy),
        (24, "strcspn", strcspn),
        (25, "index", strchr),
        (26, "rindex", strrchr),
        (27, "strlen", strlen),
        (28, "strncat", strncat),
        (29, "strncmp", strncmp),
        (30, "strncpy", strncpy),
        (31, "strpbrk", strpbrk),
        (32, "strrchr", strrchr),
        (33, "strspn", strspn),
        (34, "strstr", strstr),
        (35, "strtok", strtok),
        (36, "strtol", strtol),
        (37, "atob", atob),
        (38, "strtoul", strtoul),
        (40, "wmemcopy", wmemcopy),
        (41, "wmemset", wmemset),
        (42, "vsprintf", vsprintf),
        (43, "strtok_r", strtok_r),
        (44, "retnegativeone", ret_neg1),
    ],
};
