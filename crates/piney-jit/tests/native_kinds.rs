//! The recompiler dispatches on the opcode table's [`Op`]: every `Op` (each one the recompiler
//! compiles natively or decides something about) is carried by a real table entry of that
//! mnemonic, so that no variant is dead for a misspelt mnemonic.

use std::collections::HashSet;

use piney_ee::decode;
use piney_ee::table::Op;

#[test]
fn every_op_is_a_table_entry() {
    let mut seen = HashSet::new();
    let mut see = |w: u32| {
        let info = decode(w);
        assert_eq!(
            info.op,
            Op::of(info.mnemonic),
            "{w:#010x} {}",
            info.mnemonic
        );
        if info.op != Op::Other {
            assert_eq!(info.op.mnemonic(), info.mnemonic);
        }
        seen.insert(info.op);
    };
    for op in 0..64u32 {
        for rs in 0..32u32 {
            for rt in 0..32u32 {
                for funct in 0..64u32 {
                    see(op << 26 | rs << 21 | rt << 16 | funct);
                }
            }
        }
        for sa in 0..32u32 {
            for funct in 0..64u32 {
                for rs in [0u32, 0x10, 0x14] {
                    see(op << 26 | rs << 21 | sa << 6 | funct);
                }
            }
        }
    }
    for op in Op::ALL {
        assert!(seen.contains(op), "{op:?} is in no opcode table entry");
    }
    let native = piney_jit::native_ops();
    for op in native {
        assert_ne!(*op, Op::Other);
    }
    assert!(native.len() >= 100, "{} native kinds", native.len());
    assert_eq!(piney_jit::native_mnemonics().len(), native.len());
    eprintln!("{} native instruction kinds", native.len());
}
