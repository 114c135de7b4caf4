//! Every mnemonic the recompiler claims to compile natively is a real opcode-table entry.

use std::collections::HashSet;

use piney_ee::decode;

#[test]
fn native_mnemonics_are_table_entries() {
    let mut seen = HashSet::new();
    for op in 0..64u32 {
        for rs in 0..32u32 {
            for rt in 0..32u32 {
                for funct in 0..64u32 {
                    seen.insert(decode(op << 26 | rs << 21 | rt << 16 | funct).mnemonic);
                }
            }
        }
        for sa in 0..32u32 {
            for funct in 0..64u32 {
                for rs in [0u32, 0x10, 0x14] {
                    seen.insert(decode(op << 26 | rs << 21 | sa << 6 | funct).mnemonic);
                }
            }
        }
    }
    let native = piney_jit::native_mnemonics();
    for m in native {
        assert!(seen.contains(m), "{m} is not in the opcode table");
    }
    assert!(native.len() >= 100, "{} native kinds", native.len());
    eprintln!("{} native instruction kinds", native.len());
}
