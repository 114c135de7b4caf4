//! Decoding and disassembly of every integer, COP0 and MMI instruction, and the reserved
//! encodings around them.
//!
//! The expected texts were produced once by GNU binutils (`mipsel-linux-gnu-as -march=r5900`,
//! `mipsel-linux-gnu-objdump -m mips:5900`) from a list of every instruction, word `i` placed
//! at address `4 * i`; they are compared with this crate's output after dropping its `$`
//! register prefixes and the space after commas. The only deliberate difference: binutils
//! prints DIV/DIVU/DIV1/DIVU1 with an explicit `zero` destination, this disassembler without.

use piney_ee::decode;
use piney_ee::disasm::disassemble;
use piney_ee::table::{OpFlags, Operands};

/// (word, binutils text), word i at address 4 * i.
const BINUTILS: &[(u32, &str)] = &[
    (0x00851820, "add v1,a0,a1"),
    (0x00851821, "addu v1,a0,a1"),
    (0x00851822, "sub v1,a0,a1"),
    (0x00851823, "subu v1,a0,a1"),
    (0x00851824, "and v1,a0,a1"),
    (0x00851825, "or v1,a0,a1"),
    (0x00851826, "xor v1,a0,a1"),
    (0x00851827, "nor v1,a0,a1"),
    (0x0085182a, "slt v1,a0,a1"),
    (0x0085182b, "sltu v1,a0,a1"),
    (0x0085182c, "dadd v1,a0,a1"),
    (0x0085182d, "daddu v1,a0,a1"),
    (0x0085182e, "dsub v1,a0,a1"),
    (0x0085182f, "dsubu v1,a0,a1"),
    (0x0085180a, "movz v1,a0,a1"),
    (0x0085180b, "movn v1,a0,a1"),
    (0x000419c0, "sll v1,a0,0x7"),
    (0x000419c2, "srl v1,a0,0x7"),
    (0x000419c3, "sra v1,a0,0x7"),
    (0x00a41804, "sllv v1,a0,a1"),
    (0x00a41806, "srlv v1,a0,a1"),
    (0x00a41807, "srav v1,a0,a1"),
    (0x000419f8, "dsll v1,a0,0x7"),
    (0x000419fa, "dsrl v1,a0,0x7"),
    (0x000419fb, "dsra v1,a0,0x7"),
    (0x000419fc, "dsll32 v1,a0,0x7"),
    (0x000419fe, "dsrl32 v1,a0,0x7"),
    (0x000419ff, "dsra32 v1,a0,0x7"),
    (0x00a41814, "dsllv v1,a0,a1"),
    (0x00a41816, "dsrlv v1,a0,a1"),
    (0x00a41817, "dsrav v1,a0,a1"),
    (0x00850018, "mult a0,a1"),
    (0x00851818, "mult v1,a0,a1"),
    (0x00850019, "multu a0,a1"),
    (0x00851819, "multu v1,a0,a1"),
    (0x0085001a, "div a0,a1"),
    (0x0085001b, "divu a0,a1"),
    (0x00001810, "mfhi v1"),
    (0x00800011, "mthi a0"),
    (0x00001812, "mflo v1"),
    (0x00800013, "mtlo a0"),
    (0x00001828, "mfsa v1"),
    (0x00800029, "mtsa a0"),
    (0x00800008, "jr a0"),
    (0x0080f809, "jalr a0"),
    (0x00801809, "jalr v1,a0"),
    (0x0000000c, "syscall"),
    (0x000048cc, "syscall 0x123"),
    (0x0000000d, "break"),
    (0x0003000d, "break 0x3"),
    (0x0003010d, "break 0x3,0x4"),
    (0x0000000f, "sync"),
    (0x0000040f, "sync.p"),
    (0x00850030, "tge a0,a1"),
    (0x00850031, "tgeu a0,a1"),
    (0x00850032, "tlt a0,a1"),
    (0x00850033, "tltu a0,a1"),
    (0x00850034, "teq a0,a1"),
    (0x00850036, "tne a0,a1"),
    (0x00850274, "teq a0,a1,0x9"),
    (0x2083fffb, "addi v1,a0,-5"),
    (0x2483fffb, "addiu v1,a0,-5"),
    (0x28830064, "slti v1,a0,100"),
    (0x2c83ffff, "sltiu v1,a0,-1"),
    (0x30838000, "andi v1,a0,0x8000"),
    (0x3483ffff, "ori v1,a0,0xffff"),
    (0x38830012, "xori v1,a0,0x12"),
    (0x3c03abcd, "lui v1,0xabcd"),
    (0x60838000, "daddi v1,a0,-32768"),
    (0x64837fff, "daddiu v1,a0,32767"),
    (0x83a3fffc, "lb v1,-4(sp)"),
    (0x93a30004, "lbu v1,4(sp)"),
    (0x87a30002, "lh v1,2(sp)"),
    (0x97a30002, "lhu v1,2(sp)"),
    (0x8fa30008, "lw v1,8(sp)"),
    (0x9fa30008, "lwu v1,8(sp)"),
    (0x8ba30003, "lwl v1,3(sp)"),
    (0x9ba30000, "lwr v1,0(sp)"),
    (0x8fa30010, "lw v1,16(sp)"),
    (0x8fa40014, "lw a0,20(sp)"),
    (0x6ba30007, "ldl v1,7(sp)"),
    (0x6fa30000, "ldr v1,0(sp)"),
    (0x7ba30020, "lq v1,32(sp)"),
    (0xa3a30001, "sb v1,1(sp)"),
    (0xa7a30002, "sh v1,2(sp)"),
    (0xafa30004, "sw v1,4(sp)"),
    (0xaba30003, "swl v1,3(sp)"),
    (0xbba30000, "swr v1,0(sp)"),
    (0xafa30008, "sw v1,8(sp)"),
    (0xafa4000c, "sw a0,12(sp)"),
    (0xb3a30007, "sdl v1,7(sp)"),
    (0xb7a30000, "sdr v1,0(sp)"),
    (0x7fa3fff0, "sq v1,-16(sp)"),
    (0xcc810040, "pref 0x1,64(a0)"),
    (0xbc980000, "cache 0x18,0(a0)"),
    (0x1085ffff, "beq a0,a1,0x17c"),
    (0x1485fffe, "bne a0,a1,0x17c"),
    (0x1880fffd, "blez a0,0x17c"),
    (0x1c80fffc, "bgtz a0,0x17c"),
    (0x5085fffb, "beql a0,a1,0x17c"),
    (0x5485fffa, "bnel a0,a1,0x17c"),
    (0x5880fff9, "blezl a0,0x17c"),
    (0x5c80fff8, "bgtzl a0,0x17c"),
    (0x0480fff7, "bltz a0,0x17c"),
    (0x0481fff6, "bgez a0,0x17c"),
    (0x0482fff5, "bltzl a0,0x17c"),
    (0x0483fff4, "bgezl a0,0x17c"),
    (0x0490fff3, "bltzal a0,0x17c"),
    (0x0491fff2, "bgezal a0,0x17c"),
    (0x0492fff1, "bltzall a0,0x17c"),
    (0x0493fff0, "bgezall a0,0x17c"),
    (0x0488fffd, "tgei a0,-3"),
    (0x04890003, "tgeiu a0,3"),
    (0x048a0003, "tlti a0,3"),
    (0x048b0003, "tltiu a0,3"),
    (0x048c0003, "teqi a0,3"),
    (0x048e0003, "tnei a0,3"),
    (0x04980003, "mtsab a0,3"),
    (0x04990003, "mtsah a0,3"),
    (0x08000048, "j 0x120"),
    (0x0c000048, "jal 0x120"),
    (0x40036000, "mfc0 v1,c0_sr"),
    (0x40836800, "mtc0 v1,c0_cause"),
    (0x4003f000, "mfc0 v1,c0_errorepc"),
    (0x4003c000, "mfbpc v1"),
    (0x4003c002, "mfiab v1"),
    (0x4003c003, "mfiabm v1"),
    (0x4003c004, "mfdab v1"),
    (0x4003c005, "mfdabm v1"),
    (0x4003c006, "mfdvb v1"),
    (0x4003c007, "mfdvbm v1"),
    (0x4083c000, "mtbpc v1"),
    (0x4083c002, "mtiab v1"),
    (0x4083c003, "mtiabm v1"),
    (0x4083c004, "mtdab v1"),
    (0x4083c005, "mtdabm v1"),
    (0x4083c006, "mtdvb v1"),
    (0x4083c007, "mtdvbm v1"),
    (0x4003c800, "mfps v1,0"),
    (0x4083c800, "mtps v1,0"),
    (0x4003c803, "mfpc v1,1"),
    (0x4083c801, "mtpc v1,0"),
    (0x4100ffd0, "bc0f 0x17c"),
    (0x4101ffcf, "bc0t 0x17c"),
    (0x4102ffce, "bc0fl 0x17c"),
    (0x4103ffcd, "bc0tl 0x17c"),
    (0x42000001, "tlbr"),
    (0x42000002, "tlbwi"),
    (0x42000006, "tlbwr"),
    (0x42000008, "tlbp"),
    (0x42000018, "eret"),
    (0x42000038, "ei"),
    (0x42000039, "di"),
    (0x70851800, "madd v1,a0,a1"),
    (0x70850000, "madd a0,a1"),
    (0x70851801, "maddu v1,a0,a1"),
    (0x70851820, "madd1 v1,a0,a1"),
    (0x70851821, "maddu1 v1,a0,a1"),
    (0x70801804, "plzcw v1,a0"),
    (0x70001810, "mfhi1 v1"),
    (0x70800011, "mthi1 a0"),
    (0x70001812, "mflo1 v1"),
    (0x70800013, "mtlo1 a0"),
    (0x70851818, "mult1 v1,a0,a1"),
    (0x70851819, "multu1 v1,a0,a1"),
    (0x7085001a, "div1 a0,a1"),
    (0x7085001b, "divu1 a0,a1"),
    (0x70001830, "pmfhl.lw v1"),
    (0x70001870, "pmfhl.uw v1"),
    (0x700018b0, "pmfhl.slw v1"),
    (0x700018f0, "pmfhl.lh v1"),
    (0x70001930, "pmfhl.sh v1"),
    (0x70800031, "pmthl.lw a0"),
    (0x700518f4, "psllh v1,a1,0x3"),
    (0x700518f6, "psrlh v1,a1,0x3"),
    (0x700518f7, "psrah v1,a1,0x3"),
    (0x70051ffc, "psllw v1,a1,0x1f"),
    (0x70051ffe, "psrlw v1,a1,0x1f"),
    (0x70051fff, "psraw v1,a1,0x1f"),
    (0x70851808, "paddw v1,a0,a1"),
    (0x70851848, "psubw v1,a0,a1"),
    (0x70851888, "pcgtw v1,a0,a1"),
    (0x708518c8, "pmaxw v1,a0,a1"),
    (0x70851908, "paddh v1,a0,a1"),
    (0x70851948, "psubh v1,a0,a1"),
    (0x70851988, "pcgth v1,a0,a1"),
    (0x708519c8, "pmaxh v1,a0,a1"),
    (0x70851a08, "paddb v1,a0,a1"),
    (0x70851a48, "psubb v1,a0,a1"),
    (0x70851a88, "pcgtb v1,a0,a1"),
    (0x70851c08, "paddsw v1,a0,a1"),
    (0x70851c48, "psubsw v1,a0,a1"),
    (0x70851c88, "pextlw v1,a0,a1"),
    (0x70851cc8, "ppacw v1,a0,a1"),
    (0x70851d08, "paddsh v1,a0,a1"),
    (0x70851d48, "psubsh v1,a0,a1"),
    (0x70851d88, "pextlh v1,a0,a1"),
    (0x70851dc8, "ppach v1,a0,a1"),
    (0x70851e08, "paddsb v1,a0,a1"),
    (0x70851e48, "psubsb v1,a0,a1"),
    (0x70851e88, "pextlb v1,a0,a1"),
    (0x70851ec8, "ppacb v1,a0,a1"),
    (0x70051f88, "pext5 v1,a1"),
    (0x70051fc8, "ppac5 v1,a1"),
    (0x70051868, "pabsw v1,a1"),
    (0x708518a8, "pceqw v1,a0,a1"),
    (0x708518e8, "pminw v1,a0,a1"),
    (0x70851928, "padsbh v1,a0,a1"),
    (0x70051968, "pabsh v1,a1"),
    (0x708519a8, "pceqh v1,a0,a1"),
    (0x708519e8, "pminh v1,a0,a1"),
    (0x70851aa8, "pceqb v1,a0,a1"),
    (0x70851c28, "padduw v1,a0,a1"),
    (0x70851c68, "psubuw v1,a0,a1"),
    (0x70851ca8, "pextuw v1,a0,a1"),
    (0x70851d28, "padduh v1,a0,a1"),
    (0x70851d68, "psubuh v1,a0,a1"),
    (0x70851da8, "pextuh v1,a0,a1"),
    (0x70851e28, "paddub v1,a0,a1"),
    (0x70851e68, "psubub v1,a0,a1"),
    (0x70851ea8, "pextub v1,a0,a1"),
    (0x70851ee8, "qfsrv v1,a0,a1"),
    (0x70851809, "pmaddw v1,a0,a1"),
    (0x70851889, "psllvw v1,a1,a0"),
    (0x708518c9, "psrlvw v1,a1,a0"),
    (0x70851909, "pmsubw v1,a0,a1"),
    (0x70001a09, "pmfhi v1"),
    (0x70001a49, "pmflo v1"),
    (0x70851a89, "pinth v1,a0,a1"),
    (0x70851b09, "pmultw v1,a0,a1"),
    (0x70850349, "pdivw a0,a1"),
    (0x70851b89, "pcpyld v1,a0,a1"),
    (0x70851c09, "pmaddh v1,a0,a1"),
    (0x70851c49, "phmadh v1,a0,a1"),
    (0x70851c89, "pand v1,a0,a1"),
    (0x70851cc9, "pxor v1,a0,a1"),
    (0x70851d09, "pmsubh v1,a0,a1"),
    (0x70851d49, "phmsbh v1,a0,a1"),
    (0x70051e89, "pexeh v1,a1"),
    (0x70051ec9, "prevh v1,a1"),
    (0x70851f09, "pmulth v1,a0,a1"),
    (0x70850749, "pdivbw a0,a1"),
    (0x70051f89, "pexew v1,a1"),
    (0x70051fc9, "prot3w v1,a1"),
    (0x70851829, "pmadduw v1,a0,a1"),
    (0x708518e9, "psravw v1,a1,a0"),
    (0x70800229, "pmthi a0"),
    (0x70800269, "pmtlo a0"),
    (0x70851aa9, "pinteh v1,a0,a1"),
    (0x70851b29, "pmultuw v1,a0,a1"),
    (0x70850369, "pdivuw a0,a1"),
    (0x70851ba9, "pcpyud v1,a0,a1"),
    (0x70851ca9, "por v1,a0,a1"),
    (0x70851ce9, "pnor v1,a0,a1"),
    (0x70051ea9, "pexch v1,a1"),
    (0x70051ee9, "pcpyh v1,a1"),
    (0x70051fa9, "pexcw v1,a1"),
];

fn normalise(s: &str) -> String {
    s.replace("$fp", "$s8").replace('$', "").replace(", ", ",")
}

#[test]
fn every_instruction_decodes_and_disassembles_like_binutils() {
    for (i, &(word, text)) in BINUTILS.iter().enumerate() {
        let info = decode(word);
        let mnemonic = text.split(' ').next().unwrap();
        let mnemonic = if mnemonic == "nop" { "sll" } else { mnemonic };
        let mnemonic = mnemonic.trim_end_matches(".p");
        assert_eq!(info.mnemonic, mnemonic, "word {word:#010x}");
        assert!(!info.flags.contains(OpFlags::RESERVED), "{text}");
        let mine = disassemble(word, 4 * i as u32);
        assert_eq!(normalise(&mine), text, "word {word:#010x}: {mine}");
    }
}

#[test]
fn nop_and_register_syntax() {
    assert_eq!(disassemble(0, 0), "nop");
    assert_eq!(disassemble(0x27bd_fff0, 0), "addiu $sp, $sp, -16");
    assert_eq!(disassemble(0x7862_0010, 0), "lq $v0, 16($v1)");
    assert_eq!(disassemble(0x0804_0000, 0x0010_0000), "j 0x100000");
}

#[test]
fn cop1_and_cop2_forms_are_delegated() {
    // add.s $f1, $f2, $f3 / lqc2 $vf1, 16($a0) / vadd.xyz: formatted by their families.
    assert!(disassemble(0x4603_1040, 0).starts_with("add.s "));
    assert!(disassemble(0xd881_0010, 0).starts_with("lqc2 "));
    assert!(disassemble(0x4bc3_1068, 0).starts_with("vadd"));
}

#[test]
fn reserved_encodings_decode_to_reserved() {
    let special = |f: u32| f;
    let regimm = |rt: u32| (1 << 26) | (rt << 16);
    let mmi = |f: u32, sa: u32| (0x1c << 26) | (sa << 6) | f;
    let cop0 = |rs: u32, f: u32| (0x10 << 26) | (rs << 21) | f;
    let mut words = vec![];
    words.extend(
        [
            0x01, 0x05, 0x0e, 0x15, 0x1c, 0x1d, 0x1e, 0x1f, 0x35, 0x37, 0x39, 0x3d,
        ]
        .map(special),
    );
    words.extend([4, 5, 6, 7, 0x0d, 0x0f, 0x14, 0x15, 0x16, 0x17, 0x1a, 0x1f].map(regimm));
    words.extend([0x13, 0x1d, 0x32, 0x34, 0x35, 0x38, 0x3a, 0x3b, 0x3c, 0x3d].map(|op| op << 26));
    words.extend(
        [
            0x02, 0x03, 0x05, 0x06, 0x07, 0x0a, 0x0f, 0x14, 0x22, 0x2a, 0x32, 0x35, 0x3d,
        ]
        .map(|f| mmi(f, 0)),
    );
    words.extend([0x0b, 0x0f, 0x1c, 0x1d].map(|sa| mmi(0x08, sa))); // MMI0
    words.extend([0x00, 0x08, 0x09, 0x0b, 0x13, 0x17, 0x1c, 0x1f].map(|sa| mmi(0x28, sa))); // MMI1
    words.extend([0x01, 0x05, 0x06, 0x07, 0x0b, 0x0f, 0x16, 0x19].map(|sa| mmi(0x09, sa))); // MMI2
    words.extend(
        [
            0x01, 0x02, 0x04, 0x0b, 0x0f, 0x10, 0x11, 0x14, 0x19, 0x1c, 0x1f,
        ]
        .map(|sa| mmi(0x29, sa)),
    ); // MMI3
    words.extend([5, 6, 31].map(|sa| mmi(0x30, sa))); // PMFHL
    words.extend([1, 2].map(|sa| mmi(0x31, sa))); // PMTHL
    words.extend([1, 2, 3, 5, 9, 17, 31].map(|rs| cop0(rs, 0)));
    words.extend([0x00, 0x03, 0x10, 0x20, 0x3f].map(|f| cop0(0x10, f)));
    words.extend([
        (0x10 << 26) | (8 << 21) | (4 << 16),
        (0x10 << 26) | (24 << 11) | 1,
    ]);
    for w in words {
        let info = decode(w);
        assert!(
            info.flags.contains(OpFlags::RESERVED),
            "{w:#010x} decodes to {}",
            info.mnemonic
        );
        assert!(disassemble(w, 0).starts_with("(reserved)"));
    }
}

#[test]
fn table_facts_are_consistent() {
    for &(word, text) in BINUTILS {
        let i = decode(word);
        let f = i.flags;
        if f.contains(OpFlags::LIKELY) || f.contains(OpFlags::BRANCH) {
            assert!(f.contains(OpFlags::BRANCH | OpFlags::DELAY_SLOT), "{text}");
        }
        if f.contains(OpFlags::LINK) {
            assert!(i.writes.intersects(Operands::RA | Operands::RD), "{text}");
        }
        if f.contains(OpFlags::LOAD) {
            assert!(i.reads.contains(Operands::MEM | Operands::RS), "{text}");
        }
        if f.contains(OpFlags::STORE) {
            assert!(i.writes.contains(Operands::MEM), "{text}");
        }
        if text.starts_with('p') && !text.starts_with("pref") {
            assert!(f.contains(OpFlags::MMI), "{text}");
        }
        let m = i.mnemonic;
        let expect_cycles = match m {
            "div" | "divu" | "div1" | "divu1" | "pdivw" | "pdivuw" | "pdivbw" => 37,
            "mult" | "multu" | "mult1" | "multu1" | "madd" | "maddu" | "madd1" | "maddu1"
            | "pmultw" | "pmultuw" | "pmaddw" | "pmadduw" | "pmsubw" | "pmulth" | "pmaddh"
            | "pmsubh" | "phmadh" | "phmsbh" => 4,
            _ => 1,
        };
        assert_eq!(i.cycles, expect_cycles, "{m}");
    }
}
