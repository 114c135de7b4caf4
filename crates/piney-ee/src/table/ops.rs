//! [`Op`]: the instructions the recompiler tells apart, carried by every table entry
//! ([`OpInfo::op`](super::OpInfo::op)), so that it dispatches on an enum the compiler checks
//! rather than on mnemonic strings.

/// `a == b` in const context.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

macro_rules! ops {
    ($($v:ident = $m:literal),* $(,)?) => {
        /// An instruction the recompiler compiles by kind (its native code, or a decision about
        /// it), or [`Op::Other`]. Each entry of the opcode table carries its `Op`, found from
        /// its mnemonic when the table is built (in const context).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Op {
            $(
                #[doc = concat!("`", $m, "`")]
                $v,
            )*
            /// Every other instruction.
            Other,
        }

        impl Op {
            /// Every `Op` but [`Op::Other`].
            pub const ALL: &[Op] = &[$(Op::$v),*];

            /// The `Op` of the table entry named `mnemonic`.
            pub const fn of(mnemonic: &str) -> Op {
                $(
                    if same(mnemonic, $m) {
                        return Op::$v;
                    }
                )*
                Op::Other
            }

            /// The mnemonic of the table entries of this `Op` (`""` for [`Op::Other`]).
            pub const fn mnemonic(self) -> &'static str {
                match self {
                    $(Op::$v => $m,)*
                    Op::Other => "",
                }
            }
        }
    };
}

ops!(
    Addu = "addu",
    Subu = "subu",
    Add = "add",
    Sub = "sub",
    Daddu = "daddu",
    Dsubu = "dsubu",
    And = "and",
    Or = "or",
    Xor = "xor",
    Nor = "nor",
    Dadd = "dadd",
    Dsub = "dsub",
    Slt = "slt",
    Sltu = "sltu",
    Movz = "movz",
    Movn = "movn",
    Addiu = "addiu",
    Addi = "addi",
    Daddiu = "daddiu",
    Daddi = "daddi",
    Slti = "slti",
    Sltiu = "sltiu",
    Andi = "andi",
    Ori = "ori",
    Xori = "xori",
    Lui = "lui",
    Sll = "sll",
    Srl = "srl",
    Sra = "sra",
    Sllv = "sllv",
    Srlv = "srlv",
    Srav = "srav",
    Dsll = "dsll",
    Dsrl = "dsrl",
    Dsra = "dsra",
    Dsll32 = "dsll32",
    Dsrl32 = "dsrl32",
    Dsra32 = "dsra32",
    Dsllv = "dsllv",
    Dsrlv = "dsrlv",
    Dsrav = "dsrav",
    Mfhi = "mfhi",
    Mflo = "mflo",
    Mthi = "mthi",
    Mtlo = "mtlo",
    Mult = "mult",
    Multu = "multu",
    Div = "div",
    Divu = "divu",
    Mfsa = "mfsa",
    Mtsa = "mtsa",
    Mtsab = "mtsab",
    Mtsah = "mtsah",
    Sync = "sync",
    Pref = "pref",
    Cache = "cache",
    Beq = "beq",
    Bne = "bne",
    Beql = "beql",
    Bnel = "bnel",
    Blez = "blez",
    Bgtz = "bgtz",
    Bltz = "bltz",
    Bgez = "bgez",
    Blezl = "blezl",
    Bgtzl = "bgtzl",
    Bltzl = "bltzl",
    Bgezl = "bgezl",
    Bltzal = "bltzal",
    Bgezal = "bgezal",
    Bltzall = "bltzall",
    Bgezall = "bgezall",
    J = "j",
    Jal = "jal",
    Jr = "jr",
    Jalr = "jalr",
    Lb = "lb",
    Lbu = "lbu",
    Lh = "lh",
    Lhu = "lhu",
    Lw = "lw",
    Lwu = "lwu",
    Ld = "ld",
    Lq = "lq",
    Sb = "sb",
    Sh = "sh",
    Sw = "sw",
    Sd = "sd",
    Sq = "sq",
    Lwl = "lwl",
    Lwr = "lwr",
    Ldl = "ldl",
    Ldr = "ldr",
    Swl = "swl",
    Swr = "swr",
    Sdl = "sdl",
    Sdr = "sdr",
    Pand = "pand",
    Por = "por",
    Pxor = "pxor",
    Pnor = "pnor",
    Pcpyld = "pcpyld",
    Pcpyud = "pcpyud",
    Paddw = "paddw",
    Psubw = "psubw",
    Pmfhi = "pmfhi",
    Pmflo = "pmflo",
    Pmthi = "pmthi",
    Pmtlo = "pmtlo",
    Mfc1 = "mfc1",
    Mtc1 = "mtc1",
    MovS = "mov.s",
    NegS = "neg.s",
    AbsS = "abs.s",
    AddS = "add.s",
    SubS = "sub.s",
    MulS = "mul.s",
    AddaS = "adda.s",
    SubaS = "suba.s",
    MulaS = "mula.s",
    MaddS = "madd.s",
    MsubS = "msub.s",
    MaddaS = "madda.s",
    MsubaS = "msuba.s",
    CFS = "c.f.s",
    CEqS = "c.eq.s",
    CLtS = "c.lt.s",
    CLeS = "c.le.s",
    Bc1f = "bc1f",
    Bc1t = "bc1t",
    Bc1fl = "bc1fl",
    Bc1tl = "bc1tl",
    Lwc1 = "lwc1",
    Swc1 = "swc1",
    Qmfc2 = "qmfc2",
    Qmtc2 = "qmtc2",
    Lqc2 = "lqc2",
    Sqc2 = "sqc2",
    Cfc2 = "cfc2",
    Ctc2 = "ctc2",
    Vcallms = "vcallms",
    Vcallmsr = "vcallmsr",
);
