//! The assembler and the disassembler: known encodings (ps2autotests `tests/vu/assemble`),
//! assemble -> disassemble -> assemble round trips over every table entry, and error lines.

use piney_vu::table::{LOWER, UPPER};
use piney_vu::{assemble, decode_lower, decode_upper, disassemble};
use std::collections::HashSet;

/// One line per instruction of the table (upper first, then lower with an upper nop).
const ALL: &str = "
start:
add.xyzw vf1, vf2, vf3       iadd vi1, vi2, vi3
addx.xy vf1, vf2, vf3x       isub vi4, vi5, vi6
suby.z vf1, vf2, vf3y        iaddi vi7, vi8, -16
maddz.w vf1, vf2, vf3z       iand vi9, vi10, vi11
msubw.xyzw vf4, vf5, vf6w    ior vi12, vi13, vi14
maxx.x vf7, vf8, vf9x        move.xz vf10, vf11
miniy.y vf7, vf8, vf9y       mr32.yw vf12, vf13
mulz.z vf7, vf8, vf9z        lqi.xyzw vf14, (vi15++)
mulq.xyzw vf1, vf2, q        sqi.x vf15, (vi1++)
maxi.xyz vf1, vf2, i         lqd.y vf16, (--vi2)
muli.xy vf1, vf2, i          sqd.zw vf17, (--vi3)
minii.x vf1, vf2, i          div q, vf1x, vf2y
addq.y vf1, vf2, q           sqrt q, vf3w
maddq.z vf1, vf2, q          rsqrt q, vf4z, vf5x
addi.w vf1, vf2, i           waitq
maddi.xw vf1, vf2, i         mtir vi4, vf6y
subq.yz vf3, vf4, q          mfir.xyzw vf7, vi5
msubq.xyzw vf3, vf4, q       ilwr.x vi6, (vi7)
subi.xyzw vf3, vf4, i        iswr.yzw vi8, (vi9)
msubi.xyzw vf3, vf4, i       rnext.xyzw vf8, r
sub.xyzw vf3, vf4, vf5       rget.x vf9, r
madd.xyzw vf3, vf4, vf5      rinit r, vf10z
mul.xyzw vf3, vf4, vf5       rxor r, vf11w
max.xyzw vf3, vf4, vf5       mfp.xyzw vf12, p
msub.xyzw vf3, vf4, vf5      xtop vi10
opmsub vf6, vf7, vf8         xitop vi11
mini.xyzw vf3, vf4, vf5      xgkick vi12
addaw.xyzw acc, vf1, vf2w    esadd p, vf13
subax.xyzw acc, vf1, vf2x    ersadd p, vf14
madday.xyzw acc, vf1, vf2y   eleng p, vf15
msubaz.xyzw acc, vf1, vf2z   erleng p, vf16
mulaw.xyzw acc, vf1, vf2w    eatanxy p, vf17
itof0.xyzw vf1, vf2          eatanxz p, vf18
itof4.xyzw vf1, vf2          esum p, vf19
itof12.xyzw vf1, vf2         esqrt p, vf20x
itof15.xyzw vf1, vf2         ersqrt p, vf21y
ftoi0.xyzw vf1, vf2          ercpr p, vf22z
ftoi4.xyzw vf1, vf2          waitp
ftoi12.xyzw vf1, vf2         esin p, vf23w
ftoi15.xyzw vf1, vf2         eatan p, vf24x
mulaq.xyzw acc, vf1, q       eexp p, vf25y
abs.xyzw vf1, vf2            lq.xyzw vf26, -1024(vi13)
mulai.xyzw acc, vf1, i       sq.xyzw vf27, 1023(vi14)
clipw.xyz vf1, vf2w          ilw.x vi15, 5(vi1)
addaq.xyzw acc, vf1, q       isw.w vi2, -5(vi3)
maddaq.xyzw acc, vf1, q      iaddiu vi4, vi5, 0x7fff
addai.xyzw acc, vf1, i       isubiu vi6, vi7, 0x1234
maddai.xyzw acc, vf1, i      fceq vi1, 0xffffff
subaq.xyzw acc, vf1, q       fcset 0x123456
msubaq.xyzw acc, vf1, q      fcand vi1, 0x10
subai.xyzw acc, vf1, i       fcor vi1, 0xfff000
msubai.xyzw acc, vf1, i      fseq vi8, 0xfff
adda.xyzw acc, vf1, vf2      fsset 0xfc0
madda.xyzw acc, vf1, vf2     fsand vi9, 0x800
mula.xyzw acc, vf1, vf2      fsor vi10, 0x1
suba.xyzw acc, vf1, vf2      fmeq vi11, vi12
msuba.xyzw acc, vf1, vf2     fmand vi13, vi14
opmula acc, vf1, vf2         fmor vi15, vi1
nop [e]                      fcget vi2
nop [m]                      b start
nop [d]                      bal vi15, end
nop [t]                      jr vi3
nop                          jalr vi15, vi4
nop                          ibeq vi5, vi6, start
nop                          ibne vi7, vi8, end
nop                          ibltz vi9, -3
nop                          ibgtz vi10, 3
nop                          iblez vi11, start
nop                          ibgez vi12, end
addx.xyzw vf1, vf1, vf1x     loi 1.5
nop                          nop
end: nop                     loi 0xdeadbeef
";

#[test]
fn known_encodings() {
    // From the ps2autotests assembler: upper NOP 0x2ff, IADD vi0,vi0,vi0 0x80000030, the lower
    // NOP (MOVE with dest 0) 0x8000033c, ADD.xyzw vf1, vf2, vf3 = dest | ft | fs | fd | 0x28.
    let code = assemble(
        "nop iadd vi0, vi0, vi0\n\
         add.xyzw vf1, vf2, vf3\n\
         nop [e] iaddiu vi1, vi0, 0x7fff\n\
         nop b -1\n",
    )
    .expect("assembles");
    assert_eq!(code[0], 0x0000_02ff_8000_0030);
    let add = (0xf << 21) | (3 << 16) | (2 << 11) | (1 << 6) | 0x28;
    assert_eq!(code[1], ((add as u64) << 32) | 0x8000_033c);
    // IADDIU (0x08 << 25), imm15: 0x7ff in bits 10..0, 0xf in bits 24..21; E is bit 30.
    let iaddiu = (0x08 << 25) | (0xf << 21) | (1 << 16) | 0x7ff;
    assert_eq!(code[2], (0x4000_02ffu64 << 32) | iaddiu as u64);
    assert_eq!(code[3] as u32, (0x20 << 25) | 0x7ff);
}

#[test]
fn labels_count_from_the_delay_slot() {
    let code = assemble("top: nop\nnop ibne vi1, vi2, top\nnop b after\nnop\nafter: nop\n")
        .expect("assembles");
    // ibne at pair 1 -> top (pair 0): offset 0 - 2 = -2; b at 2 -> pair 4: 4 - 3 = 1.
    assert_eq!(code[1] as u32 & 0x7ff, (-2i32 as u32) & 0x7ff);
    assert_eq!(code[2] as u32 & 0x7ff, 1);
}

#[test]
fn round_trip_covers_every_table_entry() {
    let code = assemble(ALL).expect("the reference program assembles");
    let text: String = code.iter().map(|&p| disassemble(p) + "\n").collect();
    let again = match assemble(&text) {
        Ok(c) => c,
        Err(e) => panic!("{e}\n{text}"),
    };
    assert_eq!(code, again, "{text}");

    // Every upper and lower entry appears.
    let mut seen = HashSet::new();
    for &p in &code {
        let (u, l) = ((p >> 32) as u32, p as u32);
        let op = decode_upper(u).expect("upper decodes");
        seen.insert(("u", op.mnemonic, format!("{:?}", op.form)));
        if u & (1 << 31) == 0 {
            let op = decode_lower(l).expect("lower decodes");
            seen.insert(("l", op.mnemonic, format!("{:?}", op.form)));
        }
    }
    for op in UPPER {
        assert!(
            seen.contains(&("u", op.mnemonic, format!("{:?}", op.form))),
            "upper {} {:?} missing",
            op.mnemonic,
            op.form
        );
    }
    for op in LOWER {
        assert!(
            seen.contains(&("l", op.mnemonic, format!("{:?}", op.form))),
            "lower {} {:?} missing",
            op.mnemonic,
            op.form
        );
    }
}

#[test]
fn every_upper_opcode_decodes_consistently() {
    // A word decodes to at most one entry, and that entry's fixed bits match it.
    for key in 0..2048u32 {
        if let Some(op) = decode_upper(key) {
            assert_eq!(key & op.mask, op.fixed, "{}", op.mnemonic);
        }
        let lower = 0x8000_0000 | key;
        if let Some(op) = decode_lower(lower) {
            assert_eq!(lower & op.mask, op.fixed, "{}", op.mnemonic);
        }
    }
}

#[test]
fn errors_name_the_line() {
    let e = assemble("nop\nadd.xyzw vf1, vf2\n").expect_err("too few operands");
    assert_eq!(e.line, 2);
    assert!(e.msg.contains("3 operand"), "{}", e.msg);
    let e = assemble("nop\n\nnop iaddi vi1, vi0, 16\n").expect_err("imm5 range");
    assert_eq!(e.line, 3);
    let e = assemble("nop b nowhere\n").expect_err("label");
    assert!(e.msg.contains("nowhere"));
    let e = assemble("frob vf1\n").expect_err("mnemonic");
    assert!(e.msg.contains("frob"));
    let e = assemble("x: nop\nx: nop\n").expect_err("duplicate");
    assert_eq!(e.line, 2);
    let e = assemble("add.xyzw vf1, vf2, vf32\n").expect_err("register");
    assert!(e.to_string().starts_with("line 1:"));
    let e = assemble("nop [q]\n").expect_err("flag");
    assert!(e.msg.contains("flag"));
}

#[test]
fn undefined_words_round_trip_as_raw_words() {
    let pairs = [
        0x0000_0030_0000_0000u64,
        0x4000_0031_7e00_0000,
        0x0000_02ff_8000_0036,
    ];
    for p in pairs {
        let text = disassemble(p);
        assert!(text.contains(".upper") || text.contains(".lower"), "{text}");
        assert_eq!(
            assemble(&text).expect("raw words assemble"),
            vec![p],
            "{text}"
        );
    }
}

#[test]
fn malformed_input_is_an_error_not_a_panic() {
    let junk = [
        "add.xyzw",
        "add.xyzw vf1,",
        "add.qq vf1, vf2, vf3",
        "addx.xyzw vf1, vf2, vf3y",
        "lq.xyzw vf1, (vi1",
        "lq.xyzw vf1, 5000(vi1)",
        "sqi.x vf1, (vi1+)",
        "mtir vi1, vf2",
        "div q, vf1, vf2x",
        "b",
        "ibeq vi1, vi2",
        "fcand vi2, 1",
        "fsset 0x1000",
        "loi",
        "loi 1.0.0",
        "nop nop nop",
        "vf1",
        "é",
        "nop [e",
        ":",
        "iaddi vi1, vi0, -",
        "mfp.xyzw vf1, q",
        "clip vf1, vf2x",
        ".upper",
        ".upper 0x100000000",
        "nop .lower zz",
        "esadd p, vf1x",
        "rinit q, vf1x",
        "jalr vi1",
        "xgkick vf1",
    ];
    for j in junk {
        assert!(assemble(j).is_err(), "{j:?} assembled");
    }
}

#[test]
fn arbitrary_words_never_panic_the_interpreter() {
    use piney_vu::{NullHost, Stop, Unit, Vu};
    // A xorshift stream of pairs run as a program on both units: any outcome but a panic.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for unit in [Unit::Vu0, Unit::Vu1] {
        for _ in 0..50 {
            let code: Vec<u64> = (0..64).map(|_| next()).collect();
            let mut vu = Vu::new(unit);
            vu.load_micro(0, &code);
            let stop = vu.run(0, &mut NullHost, 500);
            if let Stop::Error { what, .. } = &stop {
                assert!(!what.is_empty());
            }
            // Every pair also disassembles.
            for &p in &code {
                assert!(!disassemble(p).is_empty());
            }
        }
    }
}
