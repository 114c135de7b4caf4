//! The disassembler: prints pairs in the syntax [`crate::asm`] reads back, so that
//! `assemble(disassemble(x)) == x` for every canonical encoding.

use crate::table::{self, Fields, Form, OpInfo};

const LANE: [char; 4] = ['x', 'y', 'z', 'w'];

/// The dest suffix (".xyzw", "." for an empty dest).
fn dest(f: &Fields) -> String {
    let mut s = String::from(".");
    for (l, c) in LANE.iter().enumerate() {
        if f.lanes & (1 << l) != 0 {
            s.push(*c);
        }
    }
    s
}

/// Whether the form prints a dest suffix (forms with an implied dest do not).
pub(crate) fn has_dest(form: Form) -> bool {
    matches!(
        form,
        Form::FdFsFt
            | Form::FdFsBc
            | Form::FdFsI
            | Form::FdFsQ
            | Form::AccFsFt
            | Form::AccFsBc
            | Form::AccFsI
            | Form::AccFsQ
            | Form::FtFs
            | Form::Lq
            | Form::Sq
            | Form::Lqi
            | Form::Lqd
            | Form::Sqi
            | Form::Sqd
            | Form::Ilw
            | Form::Ilwr
            | Form::Mfir
            | Form::Mfp
            | Form::RDest
    )
}

/// Whether the form is a broadcast form (mnemonic carries the lane letter).
pub(crate) fn is_bc(form: Form) -> bool {
    matches!(form, Form::FdFsBc | Form::AccFsBc)
}

/// Disassemble one instruction word of the given table entry.
pub fn format_op(op: &OpInfo, word: u32) -> String {
    let f = Fields::of(word);
    let mut m = op.mnemonic.to_string();
    if is_bc(op.form) {
        m.push(LANE[f.bc]);
    }
    if has_dest(op.form) {
        m.push_str(&dest(&f));
    }
    let (fd, fs, ft) = (f.fd, f.fs, f.ft);
    let (id, is, it) = (f.fd & 15, f.fs & 15, f.ft & 15);
    let (sf, tf, bc) = (LANE[f.fsf], LANE[f.ftf], LANE[f.bc]);
    let operands = match op.form {
        Form::FdFsFt | Form::OpMsub => format!("vf{fd}, vf{fs}, vf{ft}"),
        Form::FdFsBc => format!("vf{fd}, vf{fs}, vf{ft}{bc}"),
        Form::FdFsI => format!("vf{fd}, vf{fs}, i"),
        Form::FdFsQ => format!("vf{fd}, vf{fs}, q"),
        Form::AccFsFt | Form::OpMula => format!("acc, vf{fs}, vf{ft}"),
        Form::AccFsBc => format!("acc, vf{fs}, vf{ft}{bc}"),
        Form::AccFsI => format!("acc, vf{fs}, i"),
        Form::AccFsQ => format!("acc, vf{fs}, q"),
        Form::FtFs => format!("vf{ft}, vf{fs}"),
        Form::Clip => format!("vf{fs}, vf{ft}w"),
        Form::None => String::new(),
        Form::IdIsIt => format!("vi{id}, vi{is}, vi{it}"),
        Form::ItIsImm5 => format!("vi{it}, vi{is}, {}", f.imm5),
        Form::ItIsImm15 => format!("vi{it}, vi{is}, {:#x}", f.imm15),
        Form::Lq => format!("vf{ft}, {}(vi{is})", f.imm11),
        Form::Sq => format!("vf{fs}, {}(vi{it})", f.imm11),
        Form::Lqi => format!("vf{ft}, (vi{is}++)"),
        Form::Lqd => format!("vf{ft}, (--vi{is})"),
        Form::Sqi => format!("vf{fs}, (vi{it}++)"),
        Form::Sqd => format!("vf{fs}, (--vi{it})"),
        Form::Ilw => format!("vi{it}, {}(vi{is})", f.imm11),
        Form::Ilwr => format!("vi{it}, (vi{is})"),
        Form::Mfir => format!("vf{ft}, vi{is}"),
        Form::Mtir => format!("vi{it}, vf{fs}{sf}"),
        Form::Mfp => format!("vf{ft}, p"),
        Form::RDest => format!("vf{ft}, r"),
        Form::RSrc => format!("r, vf{fs}{sf}"),
        Form::Div => format!("q, vf{fs}{sf}, vf{ft}{tf}"),
        Form::Sqrt => format!("q, vf{ft}{tf}"),
        Form::EfuScalar => format!("p, vf{fs}{sf}"),
        Form::EfuVector => format!("p, vf{fs}"),
        Form::FsIt => format!("vi{it}, {:#x}", f.imm15 & 0xFFF),
        Form::Fsset => format!("{:#x}", f.imm15 & 0xFFF),
        Form::FmItIs => format!("vi{it}, vi{is}"),
        Form::Fc => format!("vi1, {:#x}", f.imm24),
        Form::Fcset => format!("{:#x}", f.imm24),
        Form::Fcget => format!("vi{it}"),
        Form::B => format!("{}", f.imm11),
        Form::Bal => format!("vi{it}, {}", f.imm11),
        Form::BranchItIs => format!("vi{it}, vi{is}, {}", f.imm11),
        Form::BranchIs => format!("vi{is}, {}", f.imm11),
        Form::Jr | Form::Is => format!("vi{is}"),
        Form::Jalr => format!("vi{it}, vi{is}"),
        Form::It => format!("vi{it}"),
    };
    if operands.is_empty() {
        m
    } else {
        format!("{m} {operands}")
    }
}

/// Disassemble the upper word (with its flag bits as `[eimdt]`).
pub fn disassemble_upper(upper: u32) -> String {
    let mut s = match table::decode_upper(upper) {
        Some(op) => format_op(op, upper),
        None => format!(".upper {upper:#010x}"),
    };
    let mut flags = String::new();
    for (bit, c) in [(31, 'i'), (30, 'e'), (29, 'm'), (28, 'd'), (27, 't')] {
        if upper & (1 << bit) != 0 {
            flags.push(c);
        }
    }
    if !flags.is_empty() {
        s.push_str(&format!(" [{flags}]"));
    }
    s
}

/// Disassemble a lower word (`i_bit`: the word is an immediate for I, printed as `loi`).
pub fn disassemble_lower(lower: u32, i_bit: bool) -> String {
    if i_bit {
        return format!("loi {lower:#010x}");
    }
    match table::decode_lower(lower) {
        Some(op) => format_op(op, lower),
        None => format!(".lower {lower:#010x}"),
    }
}

/// Disassemble a pair as `upper    lower`.
pub fn disassemble(pair: u64) -> String {
    let upper = (pair >> 32) as u32;
    let lower = pair as u32;
    format!(
        "{:<40} {}",
        disassemble_upper(upper),
        disassemble_lower(lower, upper & (1 << 31) != 0)
    )
}
