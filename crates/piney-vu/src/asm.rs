//! A small VU assembler, so that tests and tools can write microprograms in VU mnemonics.
//!
//! Syntax, one pair per line:
//! ```text
//! label:  add.xyzw vf1, vf2, vf3      iaddiu vi1, vi0, 5   ; comment
//!         mulx.xyz vf4, vf4, vf5x     lq.xyzw vf6, 2(vi1)
//!         nop [e]                     loi 1.5
//! ```
//! - The upper instruction comes first; a lone lower instruction gets an upper `nop`, a lone
//!   upper instruction a lower `nop`.
//! - Broadcast forms append the lane to the mnemonic (`addx`, `maddaw`); the dest suffix
//!   (`.xyzw`, default all four lanes) follows. Register names: `vf0`..`vf31`, `vi0`..`vi15`,
//!   `acc`, `i`, `q`, `p`, `r`; lane operands `vf2x`.
//! - Flags in brackets anywhere on the line: `[e]` end, `[i]` (implied by `loi`), `[m]`, `[d]`,
//!   `[t]`. `loi VALUE` puts a float (or raw `0x` bits) in the lower word and sets the I bit.
//! - Branch targets are labels or raw pair offsets from the delay slot.
//! - Comments start with `;`, `#` or `//`.
//! - `.upper 0xWORD` and `.lower 0xWORD` give raw words (the disassembler prints undefined
//!   encodings that way).
//!
//! Errors carry the 1-based line number.

use crate::disasm::{has_dest, is_bc};
use crate::table::{Form, LOWER, OpInfo, UPPER};
use std::collections::HashMap;

/// An assembly error on a line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {msg}")]
pub struct AsmError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub msg: String,
}

type R<T> = Result<T, String>;

/// Assemble a program into 64-bit pairs (upper word in the high half).
pub fn assemble(src: &str) -> Result<Vec<u64>, AsmError> {
    // Pass 1: labels and the instruction lines.
    let mut labels = HashMap::new();
    let mut lines = Vec::new();
    for (n, raw) in src.lines().enumerate() {
        let err = |msg: String| AsmError { line: n + 1, msg };
        let mut text = strip_comment(raw).trim();
        while let Some(colon) = label_end(text) {
            let name = text[..colon].trim();
            if labels.insert(name.to_string(), lines.len()).is_some() {
                return Err(err(format!("label `{name}` defined twice")));
            }
            text = text[colon + 1..].trim();
        }
        if !text.is_empty() {
            lines.push((n + 1, text.to_string()));
        }
    }
    // Pass 2: encode.
    lines
        .iter()
        .enumerate()
        .map(|(index, (line, text))| {
            assemble_line(text, index, &labels).map_err(|msg| AsmError { line: *line, msg })
        })
        .collect()
}

fn strip_comment(s: &str) -> &str {
    let mut end = s.len();
    for pat in [";", "#", "//"] {
        if let Some(i) = s.find(pat) {
            end = end.min(i);
        }
    }
    &s[..end]
}

/// The position of a label's colon at the start of the text.
fn label_end(text: &str) -> Option<usize> {
    let colon = text.find(':')?;
    let name = &text[..colon];
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.'))
    .then_some(colon)
}

fn assemble_line(text: &str, index: usize, labels: &HashMap<String, usize>) -> R<u64> {
    // Flags in brackets.
    let mut flags = 0u32;
    let mut rest = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '[' {
            let mut inner = String::new();
            loop {
                match chars.next() {
                    Some(']') => break,
                    Some(c) => inner.push(c),
                    None => return Err("unterminated `[`".into()),
                }
            }
            for f in inner.chars().filter(|c| !c.is_whitespace() && *c != ',') {
                flags |= match f.to_ascii_lowercase() {
                    'i' => 1 << 31,
                    'e' => 1 << 30,
                    'm' => 1 << 29,
                    'd' => 1 << 28,
                    't' => 1 << 27,
                    _ => return Err(format!("unknown flag `{f}` (e, i, m, d, t)")),
                };
            }
            rest.push(' ');
        } else {
            rest.push(c);
        }
    }
    // Glue operand lists together: "a, b" -> "a,b".
    let mut glued = String::new();
    for part in rest.split(',') {
        if !glued.is_empty() {
            while glued.ends_with(char::is_whitespace) {
                glued.pop();
            }
            glued.push(',');
        }
        glued.push_str(if glued.is_empty() {
            part
        } else {
            part.trim_start()
        });
    }
    let tokens: Vec<String> = glued
        .split_whitespace()
        .map(|t| t.to_ascii_lowercase())
        .collect();
    let mut pos = 0;
    let mut next = |what: &str| -> R<String> {
        let t = tokens
            .get(pos)
            .cloned()
            .ok_or_else(|| format!("missing {what}"))?;
        pos += 1;
        Ok(t)
    };

    let first = next("an instruction")?;
    let (upper_word, lower_first) = match find_op(UPPER, &first) {
        // A raw upper word (what the disassembler prints for undefined encodings).
        _ if first == ".upper" => (raw_word(&next("the word of `.upper`")?)?, None),
        Some((op, m)) => {
            let ops = if form_has_operands(op.form) {
                next(&format!("operands of `{first}`"))?
            } else {
                String::new()
            };
            (encode(op, &m, &ops, index, labels)?, None)
        }
        None => {
            // A lone lower instruction: the upper is a NOP.
            let nop = &UPPER[UPPER.len() - 1];
            (nop.fixed, Some(first))
        }
    };
    let lower_mn = match lower_first {
        Some(m) => Some(m),
        None => tokens.get(pos).cloned().inspect(|_| pos += 1),
    };
    let mut upper_word = upper_word | flags;
    let lower_word = match lower_mn {
        None => LOWER[0].fixed,
        Some(m) if m == ".lower" => {
            let v = tokens.get(pos).ok_or("missing the word of `.lower`")?;
            pos += 1;
            raw_word(v)?
        }
        Some(m) if m == "loi" => {
            let v = tokens.get(pos).ok_or("missing the value of `loi`")?;
            pos += 1;
            upper_word |= 1 << 31;
            parse_float_bits(v)?
        }
        Some(m) => {
            let (op, mn) =
                find_op(LOWER, &m).ok_or_else(|| format!("unknown instruction `{m}`"))?;
            let ops = if form_has_operands(op.form) {
                let t = tokens
                    .get(pos)
                    .cloned()
                    .ok_or_else(|| format!("missing operands of `{m}`"))?;
                pos += 1;
                t
            } else {
                String::new()
            };
            encode(op, &mn, &ops, index, labels)?
        }
    };
    if let Some(extra) = tokens.get(pos) {
        return Err(format!("unexpected `{extra}`"));
    }
    Ok(((upper_word as u64) << 32) | lower_word as u64)
}

fn form_has_operands(form: Form) -> bool {
    form != Form::None
}

/// A parsed mnemonic: the table entry's name, the bc lane and the dest field.
struct Mnemonic {
    bc: u32,
    dest: Option<u32>,
}

fn find_op(table: &'static [OpInfo], token: &str) -> Option<(&'static OpInfo, Mnemonic)> {
    let (base, dest) = match token.split_once('.') {
        Some((b, d)) => (b, Some(d)),
        None => (token, None),
    };
    let dest = match dest {
        None => None,
        Some(d) => Some(parse_dest(d)?),
    };
    let base = if base == "clip" { "clipw" } else { base };
    if let Some(op) = table.iter().find(|o| o.mnemonic == base && !is_bc(o.form)) {
        return Some((op, Mnemonic { bc: 0, dest }));
    }
    let lane = base.chars().last().and_then(lane_of)?;
    let stem = &base[..base.len() - 1];
    table
        .iter()
        .find(|o| o.mnemonic == stem && is_bc(o.form))
        .map(|op| (op, Mnemonic { bc: lane, dest }))
}

fn lane_of(c: char) -> Option<u32> {
    match c {
        'x' => Some(0),
        'y' => Some(1),
        'z' => Some(2),
        'w' => Some(3),
        _ => None,
    }
}

/// "xyzw" subset in order -> the dest field (x = bit 3).
fn parse_dest(d: &str) -> Option<u32> {
    let mut field = 0;
    let mut last = -1i32;
    for c in d.chars() {
        let l = lane_of(c)? as i32;
        if l <= last {
            return None;
        }
        last = l;
        field |= 8 >> l;
    }
    Some(field)
}

fn parse_int(s: &str) -> R<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        i64::from_str_radix(h, 16)
    } else if let Some(b) = body.strip_prefix("0b") {
        i64::from_str_radix(b, 2)
    } else {
        body.parse::<i64>()
    }
    .map_err(|_| format!("bad number `{s}`"))?;
    Ok(if neg { -v } else { v })
}

fn ranged(s: &str, lo: i64, hi: i64, what: &str) -> R<i64> {
    let v = parse_int(s)?;
    if v < lo || v > hi {
        return Err(format!("{what} {v} out of range {lo}..={hi}"));
    }
    Ok(v)
}

fn raw_word(s: &str) -> R<u32> {
    Ok(ranged(s, 0, u32::MAX as i64, "word")? as u32)
}

fn parse_float_bits(s: &str) -> R<u32> {
    if s.starts_with("0x") {
        return Ok(ranged(s, 0, u32::MAX as i64, "immediate")? as u32);
    }
    s.trim_end_matches('f')
        .parse::<f32>()
        .map(f32::to_bits)
        .map_err(|_| format!("bad float `{s}`"))
}

fn reg(s: &str, prefix: &str, max: usize) -> R<usize> {
    let n = s
        .strip_prefix(prefix)
        .ok_or_else(|| format!("expected a {prefix} register, got `{s}`"))?;
    let v: usize = n.parse().map_err(|_| format!("bad register `{s}`"))?;
    if v > max {
        return Err(format!("register `{s}` out of range"));
    }
    Ok(v)
}

fn vf(s: &str) -> R<usize> {
    reg(s, "vf", 31)
}

fn vi(s: &str) -> R<usize> {
    reg(s, "vi", 15)
}

/// `vf3x` -> (3, lane); with `need` the lane is required.
fn vf_lane(s: &str, need: bool) -> R<(usize, Option<u32>)> {
    if let Some(l) = s.chars().last().and_then(lane_of) {
        let r = &s[..s.len() - 1];
        if r.starts_with("vf") && r[2..].chars().all(|c| c.is_ascii_digit()) && r.len() > 2 {
            return Ok((vf(r)?, Some(l)));
        }
    }
    if need {
        return Err(format!("expected a register with a lane (vf1x), got `{s}`"));
    }
    Ok((vf(s)?, None))
}

fn word_of(s: &str, expect: &str) -> R<()> {
    if s == expect {
        Ok(())
    } else {
        Err(format!("expected `{expect}`, got `{s}`"))
    }
}

/// `imm(vi2)` -> (imm, 2).
fn mem(s: &str) -> R<(i64, usize)> {
    let open = s
        .find('(')
        .ok_or_else(|| format!("expected imm(viN), got `{s}`"))?;
    let inner = s[open + 1..]
        .strip_suffix(')')
        .ok_or_else(|| format!("expected imm(viN), got `{s}`"))?;
    let imm = if open == 0 {
        0
    } else {
        ranged(&s[..open], -1024, 1023, "offset")?
    };
    Ok((imm, vi(inner)?))
}

fn paren(s: &str, pre: &str, post: &str) -> R<usize> {
    let inner = s
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .and_then(|x| x.strip_prefix(pre))
        .and_then(|x| x.strip_suffix(post))
        .ok_or_else(|| format!("expected ({pre}viN{post}), got `{s}`"))?;
    vi(inner)
}

fn target(s: &str, index: usize, labels: &HashMap<String, usize>) -> R<u32> {
    let off = match labels.get(s) {
        // Offsets count pairs from the delay slot.
        Some(&at) => at as i64 - (index as i64 + 1),
        None if s.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+') => {
            parse_int(s)?
        }
        None => return Err(format!("unknown label `{s}`")),
    };
    if !(-1024..=1023).contains(&off) {
        return Err(format!("branch to `{s}` out of range ({off} pairs)"));
    }
    Ok(off as u32 & 0x7FF)
}

const FT: u32 = 16;
const FS: u32 = 11;
const FD: u32 = 6;

fn encode(
    op: &OpInfo,
    m: &Mnemonic,
    operands: &str,
    index: usize,
    labels: &HashMap<String, usize>,
) -> R<u32> {
    let ops: Vec<&str> = if operands.is_empty() {
        Vec::new()
    } else {
        operands.split(',').collect()
    };
    let want = operand_count(op.form);
    if ops.len() != want {
        return Err(format!(
            "`{}` takes {want} operand(s), got {}",
            op.mnemonic,
            ops.len()
        ));
    }
    let mut w = op.fixed | op.implied;
    if has_dest(op.form) {
        w |= m.dest.unwrap_or(0xF) << 21;
    } else if m.dest.is_some() && op.implied == 0 {
        return Err(format!("`{}` takes no dest suffix", op.mnemonic));
    }
    if is_bc(op.form) {
        w |= m.bc;
    }
    let o = |i: usize| ops[i];
    let lane_must = |s: &str| -> R<(usize, u32)> {
        let (r, l) = vf_lane(s, true)?;
        Ok((r, l.unwrap_or(0)))
    };
    let r = |v: usize, at: u32| (v as u32) << at;
    w |= match op.form {
        Form::FdFsFt | Form::OpMsub => r(vf(o(0))?, FD) | r(vf(o(1))?, FS) | r(vf(o(2))?, FT),
        Form::FdFsBc => {
            let (t, lane) = vf_lane(o(2), false)?;
            if lane.is_some_and(|l| l != m.bc) {
                return Err(format!("lane of `{}` differs from the mnemonic's", o(2)));
            }
            r(vf(o(0))?, FD) | r(vf(o(1))?, FS) | r(t, FT)
        }
        Form::FdFsI | Form::FdFsQ => {
            word_of(o(2), if op.form == Form::FdFsI { "i" } else { "q" })?;
            r(vf(o(0))?, FD) | r(vf(o(1))?, FS)
        }
        Form::AccFsFt | Form::OpMula => {
            word_of(o(0), "acc")?;
            r(vf(o(1))?, FS) | r(vf(o(2))?, FT)
        }
        Form::AccFsBc => {
            word_of(o(0), "acc")?;
            let (t, lane) = vf_lane(o(2), false)?;
            if lane.is_some_and(|l| l != m.bc) {
                return Err(format!("lane of `{}` differs from the mnemonic's", o(2)));
            }
            r(vf(o(1))?, FS) | r(t, FT)
        }
        Form::AccFsI | Form::AccFsQ => {
            word_of(o(0), "acc")?;
            word_of(o(2), if op.form == Form::AccFsI { "i" } else { "q" })?;
            r(vf(o(1))?, FS)
        }
        Form::FtFs => r(vf(o(0))?, FT) | r(vf(o(1))?, FS),
        Form::Clip => {
            let (t, lane) = vf_lane(o(1), false)?;
            if lane.is_some_and(|l| l != 3) {
                return Err("clip compares against the w lane".into());
            }
            r(vf(o(0))?, FS) | r(t, FT)
        }
        Form::None => 0,
        Form::IdIsIt => r(vi(o(0))?, FD) | r(vi(o(1))?, FS) | r(vi(o(2))?, FT),
        Form::ItIsImm5 => {
            let imm = ranged(o(2), -16, 15, "imm5")? as u32 & 0x1F;
            r(vi(o(0))?, FT) | r(vi(o(1))?, FS) | imm << 6
        }
        Form::ItIsImm15 => {
            let imm = ranged(o(2), 0, 0x7FFF, "imm15")? as u32;
            r(vi(o(0))?, FT) | r(vi(o(1))?, FS) | (imm & 0x7FF) | ((imm & 0x7800) << 10)
        }
        Form::Lq => {
            let (imm, b) = mem(o(1))?;
            r(vf(o(0))?, FT) | r(b, FS) | (imm as u32 & 0x7FF)
        }
        Form::Sq => {
            let (imm, b) = mem(o(1))?;
            r(vf(o(0))?, FS) | r(b, FT) | (imm as u32 & 0x7FF)
        }
        Form::Lqi => r(vf(o(0))?, FT) | r(paren(o(1), "", "++")?, FS),
        Form::Lqd => r(vf(o(0))?, FT) | r(paren(o(1), "--", "")?, FS),
        Form::Sqi => r(vf(o(0))?, FS) | r(paren(o(1), "", "++")?, FT),
        Form::Sqd => r(vf(o(0))?, FS) | r(paren(o(1), "--", "")?, FT),
        Form::Ilw => {
            let (imm, b) = mem(o(1))?;
            r(vi(o(0))?, FT) | r(b, FS) | (imm as u32 & 0x7FF)
        }
        Form::Ilwr => r(vi(o(0))?, FT) | r(paren(o(1), "", "")?, FS),
        Form::Mfir => r(vf(o(0))?, FT) | r(vi(o(1))?, FS),
        Form::Mtir => {
            let (s, l) = lane_must(o(1))?;
            r(vi(o(0))?, FT) | r(s, FS) | l << 21
        }
        Form::Mfp => {
            word_of(o(1), "p")?;
            r(vf(o(0))?, FT)
        }
        Form::RDest => {
            word_of(o(1), "r")?;
            r(vf(o(0))?, FT)
        }
        Form::RSrc => {
            word_of(o(0), "r")?;
            let (s, l) = lane_must(o(1))?;
            r(s, FS) | l << 21
        }
        Form::Div => {
            word_of(o(0), "q")?;
            let (s, ls) = lane_must(o(1))?;
            let (t, lt) = lane_must(o(2))?;
            r(s, FS) | ls << 21 | r(t, FT) | lt << 23
        }
        Form::Sqrt => {
            word_of(o(0), "q")?;
            let (t, lt) = lane_must(o(1))?;
            r(t, FT) | lt << 23
        }
        Form::EfuScalar => {
            word_of(o(0), "p")?;
            let (s, l) = lane_must(o(1))?;
            r(s, FS) | l << 21
        }
        Form::EfuVector => {
            word_of(o(0), "p")?;
            r(vf(o(1))?, FS)
        }
        Form::FsIt => {
            let imm = ranged(o(1), 0, 0xFFF, "imm12")? as u32;
            r(vi(o(0))?, FT) | (imm & 0x7FF) | ((imm & 0x800) << 10)
        }
        Form::Fsset => {
            let imm = ranged(o(0), 0, 0xFFF, "imm12")? as u32;
            (imm & 0x7FF) | ((imm & 0x800) << 10)
        }
        Form::FmItIs => r(vi(o(0))?, FT) | r(vi(o(1))?, FS),
        Form::Fc => {
            if vi(o(0))? != 1 {
                return Err(format!("`{}` always writes vi1", op.mnemonic));
            }
            ranged(o(1), 0, 0xFF_FFFF, "imm24")? as u32
        }
        Form::Fcset => ranged(o(0), 0, 0xFF_FFFF, "imm24")? as u32,
        Form::Fcget => r(vi(o(0))?, FT),
        Form::B => target(o(0), index, labels)?,
        Form::Bal => r(vi(o(0))?, FT) | target(o(1), index, labels)?,
        Form::BranchItIs => r(vi(o(0))?, FT) | r(vi(o(1))?, FS) | target(o(2), index, labels)?,
        Form::BranchIs => r(vi(o(0))?, FS) | target(o(1), index, labels)?,
        Form::Jr | Form::Is => r(vi(o(0))?, FS),
        Form::Jalr => r(vi(o(0))?, FT) | r(vi(o(1))?, FS),
        Form::It => r(vi(o(0))?, FT),
    };
    Ok(w)
}

fn operand_count(form: Form) -> usize {
    match form {
        Form::None => 0,
        Form::Fsset | Form::Fcset | Form::Fcget | Form::B | Form::Jr | Form::Is | Form::It => 1,
        Form::FdFsFt
        | Form::FdFsBc
        | Form::FdFsI
        | Form::FdFsQ
        | Form::AccFsFt
        | Form::AccFsBc
        | Form::AccFsI
        | Form::AccFsQ
        | Form::OpMula
        | Form::OpMsub
        | Form::IdIsIt
        | Form::ItIsImm5
        | Form::ItIsImm15
        | Form::Div
        | Form::BranchItIs => 3,
        _ => 2,
    }
}
