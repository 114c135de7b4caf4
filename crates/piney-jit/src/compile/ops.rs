//! Native code for the instructions the recompiler compiles itself ([`NATIVE`]): one arm per
//! kind of the opcode table, each doing exactly what the interpreter's `exec` does and handing
//! the cases it does not take (overflow, alignment, a device address, a store into code, an
//! unusable coprocessor) to the interpreter's function through a slow path.

use piney_ee::interp::cop1::fcr31;

use super::*;

impl Gen<'_> {
    /// FCR31 = FCR31 & !clear | set.
    fn update_fcr31(&mut self, clear: u32, set: Option<Value>) {
        let f = self.ld(types::I32, FCR31);
        let f = self.b.ins().band_imm_s(f, !clear as i32 as i64);
        let f = match set {
            Some(v) => self.b.ins().bor(f, v),
            None => f,
        };
        self.st(f, FCR31);
    }

    /// Compile `insn` natively if it is one of the native kinds. False: use the fallback.
    pub(super) fn native(&mut self, insn: &Insn) -> bool {
        let w = insn.word;
        let m = insn.info.op;
        let i32t = types::I32;
        let i64t = types::I64;
        match m {
            // ---------------------------------------------------- ALU, register forms
            Op::Addu | Op::Subu => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let v = if m == Op::Addu {
                    self.b.ins().iadd(a, c)
                } else {
                    self.b.ins().isub(a, c)
                };
                self.set32(rd(w), v);
            }
            Op::Add | Op::Sub => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let (v, of) = self.add_sub_overflow(m == Op::Add, a, c);
                let mut j = self.new_join();
                self.guard(of, &mut j);
                self.set32(rd(w), v);
                self.join(j);
            }
            Op::And | Op::Or | Op::Xor | Op::Nor => {
                // Both operands sign-extended 32-bit values: so is the result (bits 63..31 of
                // each are equal, and stay equal through the bitwise operation).
                let narrow = self.known32(rs(w)) && self.known32(rt(w));
                let (a, c) = self.pair(rs(w), rt(w));
                let v = match m {
                    Op::And => self.b.ins().band(a, c),
                    Op::Or => self.b.ins().bor(a, c),
                    Op::Xor => self.b.ins().bxor(a, c),
                    _ => {
                        let o = self.b.ins().bor(a, c);
                        self.b.ins().bnot(o)
                    }
                };
                if narrow {
                    self.set32(rd(w), v);
                } else {
                    self.set64(rd(w), v);
                }
            }
            Op::Daddu | Op::Dsubu => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let v = if m == Op::Daddu {
                    self.b.ins().iadd(a, c)
                } else {
                    self.b.ins().isub(a, c)
                };
                self.set64(rd(w), v);
            }
            Op::Dadd | Op::Dsub => {
                let a = self.r64(rs(w));
                let c = self.r64(rt(w));
                let (v, of) = self.add_sub_overflow(m == Op::Dadd, a, c);
                let mut j = self.new_join();
                self.guard(of, &mut j);
                self.set64(rd(w), v);
                self.join(j);
            }
            Op::Slt | Op::Sltu => {
                let (a, c) = self.pair(rs(w), rt(w));
                let cc = if m == Op::Slt {
                    IntCC::SignedLessThan
                } else {
                    IntCC::UnsignedLessThan
                };
                let f = self.b.ins().icmp(cc, a, c);
                let v = self.b.ins().uextend(types::I32, f);
                self.set32(rd(w), v);
            }
            Op::Movz | Op::Movn => {
                let t = self.r64(rt(w));
                let s = self.r64(rs(w));
                let d = self.r64(rd(w));
                let cc = if m == Op::Movz {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                let c = self.b.ins().icmp_imm_s(cc, t, 0);
                let v = self.b.ins().select(c, s, d);
                self.set64(rd(w), v);
            }
            // ---------------------------------------------------- immediates
            Op::Addiu => {
                let a = self.r32(rs(w));
                let v = self.add_imm(a, simm(w) as i64);
                self.set32(rt(w), v);
            }
            Op::Addi => {
                let a = self.r32(rs(w));
                let c = self.c32(simm(w) as u32);
                let (v, of) = self.add_sub_overflow(true, a, c);
                let mut j = self.new_join();
                self.guard(of, &mut j);
                self.set32(rt(w), v);
                self.join(j);
            }
            Op::Daddiu => {
                let a = self.r64(rs(w));
                let v = self.add_imm(a, simm(w) as i64);
                self.set64(rt(w), v);
            }
            Op::Daddi => {
                let a = self.r64(rs(w));
                let c = self.c64(simm(w) as i64 as u64);
                let (v, of) = self.add_sub_overflow(true, a, c);
                let mut j = self.new_join();
                self.guard(of, &mut j);
                self.set64(rt(w), v);
                self.join(j);
            }
            Op::Slti | Op::Sltiu => {
                let a = self.one(rs(w));
                let cc = if m == Op::Slti {
                    IntCC::SignedLessThan
                } else {
                    IntCC::UnsignedLessThan
                };
                let f = self.b.ins().icmp_imm_s(cc, a, simm(w) as i64);
                let v = self.b.ins().uextend(types::I32, f);
                self.set32(rt(w), v);
            }
            Op::Andi | Op::Ori | Op::Xori => {
                // The immediate touches bits 15..0 only: a sign-extended operand gives a
                // sign-extended result.
                let narrow = self.known32(rs(w));
                let a = self.one(rs(w));
                let k = uimm(w) as i64;
                let v = match m {
                    Op::Andi => self.b.ins().band_imm_s(a, k),
                    Op::Ori => self.b.ins().bor_imm_s(a, k),
                    _ => self.b.ins().bxor_imm_s(a, k),
                };
                if narrow {
                    self.set32(rt(w), v);
                } else {
                    self.set64(rt(w), v);
                }
            }
            Op::Lui => {
                let v = self.c32(uimm(w) << 16);
                self.set32(rt(w), v);
            }
            // ---------------------------------------------------- shifts
            Op::Sll | Op::Srl | Op::Sra => {
                if rd(w) != 0 {
                    let a = self.r32(rt(w));
                    let k = sa(w) as i64;
                    let v = match m {
                        Op::Sll => self.b.ins().ishl_imm_s(a, k),
                        Op::Srl => self.b.ins().ushr_imm_s(a, k),
                        _ => self.b.ins().sshr_imm_s(a, k),
                    };
                    self.set32(rd(w), v);
                }
            }
            Op::Sllv | Op::Srlv | Op::Srav => {
                let a = self.r32(rt(w));
                let s = self.r32(rs(w));
                let s = self.b.ins().band_imm_s(s, 31);
                let v = match m {
                    Op::Sllv => self.b.ins().ishl(a, s),
                    Op::Srlv => self.b.ins().ushr(a, s),
                    _ => self.b.ins().sshr(a, s),
                };
                self.set32(rd(w), v);
            }
            Op::Dsll | Op::Dsrl | Op::Dsra | Op::Dsll32 | Op::Dsrl32 | Op::Dsra32 => {
                let a = self.r64(rt(w));
                let k = sa(w) as i64
                    + if matches!(m, Op::Dsll32 | Op::Dsrl32 | Op::Dsra32) {
                        32
                    } else {
                        0
                    };
                let v = match m {
                    Op::Dsll | Op::Dsll32 => self.b.ins().ishl_imm_s(a, k),
                    Op::Dsrl | Op::Dsrl32 => self.b.ins().ushr_imm_s(a, k),
                    _ => self.b.ins().sshr_imm_s(a, k),
                };
                self.set64(rd(w), v);
            }
            Op::Dsllv | Op::Dsrlv | Op::Dsrav => {
                let a = self.r64(rt(w));
                let s = self.r64(rs(w));
                let s = self.b.ins().band_imm_s(s, 63);
                let v = match m {
                    Op::Dsllv => self.b.ins().ishl(a, s),
                    Op::Dsrlv => self.b.ins().ushr(a, s),
                    _ => self.b.ins().sshr(a, s),
                };
                self.set64(rd(w), v);
            }
            // ---------------------------------------------------- HI/LO, multiply, SA
            Op::Mfhi | Op::Mflo => {
                let v = self.r64(if m == Op::Mfhi { R_HI } else { R_LO });
                self.set64(rd(w), v);
            }
            Op::Mthi | Op::Mtlo => {
                let v = self.r64(rs(w));
                self.set64(if m == Op::Mthi { R_HI } else { R_LO }, v);
            }
            Op::Mult | Op::Multu => {
                let a = self.r32(rs(w));
                let c = self.r32(rt(w));
                let (a, c) = if m == Op::Mult {
                    (self.b.ins().sextend(i64t, a), self.b.ins().sextend(i64t, c))
                } else {
                    (self.b.ins().uextend(i64t, a), self.b.ins().uextend(i64t, c))
                };
                // The high half taken from the product rotated by 32: from a shift right,
                // Cranelift's optimiser makes it a widening multiply of its own (`smulhi`, its
                // operands and result in fixed registers). When the block reads HI (MFHI: a
                // 64-bit product), LO is the same product's low half, one multiply for both;
                // otherwise LO is a 32-bit multiply of its own, the shortest way to it (hash
                // loops wait on it, and HI is then only written at the exits). Measured on
                // bench_compute, scale 32: fixed point (four MULT/MFLO/MFHI a vertex row)
                // 36.1 -> 35.1 ms, 28 -> 19 multiplies and 107 -> 89 stack accesses in its
                // loop; a product's low half for every MULT made the hash loop 127 -> 148 ms.
                let p = self.b.ins().imul(a, c);
                let r = self.b.ins().rotr_imm_s(p, 32);
                let hi = self.b.ins().ireduce(i32t, r);
                let lo = if self.hi_read_later[self.index as usize] {
                    // The low half through the rotated value: from `p` itself the optimiser
                    // narrows it back to a 32-bit multiply.
                    let l = self.b.ins().ushr_imm_s(r, 32);
                    self.b.ins().ireduce(i32t, l)
                } else {
                    self.b.ins().ireduce(i32t, p)
                };
                self.set32(R_LO, lo);
                self.set32(R_HI, hi);
                self.set32(rd(w), lo);
            }
            Op::Div | Op::Divu => {
                // The R5900 never traps here: by zero gives quotient -1 (1 for a negative signed
                // dividend) and remainder the dividend; 0x80000000 / -1 gives 0x80000000 rem 0.
                // A divisor of 1 stands in for the cases the host would trap on.
                let n = self.r32(rs(w));
                let d = self.r32(rt(w));
                let zero = self.b.ins().icmp_imm_s(IntCC::Equal, d, 0);
                let one = self.c32(1);
                let (q, r) = if m == Op::Div {
                    let min = self.b.ins().icmp_imm_s(IntCC::Equal, n, i32::MIN as i64);
                    let m1 = self.b.ins().icmp_imm_s(IntCC::Equal, d, -1);
                    let ovf = self.b.ins().band(min, m1);
                    let odd = self.b.ins().bor(zero, ovf);
                    let ds = self.b.ins().select(odd, one, d);
                    let q = self.b.ins().sdiv(n, ds);
                    let r = self.b.ins().srem(n, ds);
                    let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, n, 0);
                    let all = self.c32(u32::MAX);
                    let qz = self.b.ins().select(neg, one, all);
                    (
                        self.b.ins().select(zero, qz, q),
                        self.b.ins().select(zero, n, r),
                    )
                } else {
                    let ds = self.b.ins().select(zero, one, d);
                    let q = self.b.ins().udiv(n, ds);
                    let r = self.b.ins().urem(n, ds);
                    let all = self.c32(u32::MAX);
                    (
                        self.b.ins().select(zero, all, q),
                        self.b.ins().select(zero, n, r),
                    )
                };
                let q = self.b.ins().sextend(i64t, q);
                let r = self.b.ins().sextend(i64t, r);
                self.set64(R_LO, q);
                self.set64(R_HI, r);
            }
            Op::Mfsa => {
                let s = self.ld(i32t, SA);
                let s = self.b.ins().ushr_imm_s(s, 3);
                let v = self.b.ins().uextend(i64t, s);
                self.set64(rd(w), v);
            }
            Op::Mtsa | Op::Mtsab | Op::Mtsah => {
                let a = self.r32(rs(w));
                let v = match m {
                    Op::Mtsa => {
                        let x = self.b.ins().band_imm_s(a, 15);
                        self.b.ins().ishl_imm_s(x, 3)
                    }
                    Op::Mtsab => {
                        let x = self.b.ins().bxor_imm_s(a, uimm(w) as i64);
                        let x = self.b.ins().band_imm_s(x, 15);
                        self.b.ins().ishl_imm_s(x, 3)
                    }
                    _ => {
                        let x = self.b.ins().bxor_imm_s(a, uimm(w) as i64);
                        let x = self.b.ins().band_imm_s(x, 7);
                        self.b.ins().ishl_imm_s(x, 4)
                    }
                };
                self.st(v, SA);
            }
            Op::Sync | Op::Pref | Op::Cache => {}
            // ---------------------------------------------------- branches and jumps
            Op::Beq | Op::Bne | Op::Beql | Op::Bnel => {
                let (a, c) = self.pair(rs(w), rt(w));
                let cc = if matches!(m, Op::Beq | Op::Beql) {
                    IntCC::Equal
                } else {
                    IntCC::NotEqual
                };
                let taken = self.cmp(cc, a, c);
                let t = self.c32(branch_target(insn));
                self.branch_to(insn, taken, t);
            }
            Op::Blez
            | Op::Bgtz
            | Op::Bltz
            | Op::Bgez
            | Op::Blezl
            | Op::Bgtzl
            | Op::Bltzl
            | Op::Bgezl
            | Op::Bltzal
            | Op::Bgezal
            | Op::Bltzall
            | Op::Bgezall => {
                let a = self.one(rs(w));
                let cc = match m {
                    Op::Blez | Op::Blezl => IntCC::SignedLessThanOrEqual,
                    Op::Bgtz | Op::Bgtzl => IntCC::SignedGreaterThan,
                    Op::Bltz | Op::Bltzl | Op::Bltzal | Op::Bltzall => IntCC::SignedLessThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                let taken = self.cmp_imm(cc, a, 0);
                if insn.info.flags.contains(OpFlags::LINK) {
                    // Linked whether taken or not (after the condition read rs).
                    self.link(31, insn);
                }
                let t = self.c32(branch_target(insn));
                self.branch_to(insn, taken, t);
            }
            Op::J | Op::Jal => {
                let t = (insn.addr.wrapping_add(4) & 0xf000_0000) | (target(w) << 2);
                if m == Op::Jal {
                    self.link(31, insn);
                }
                let t = self.c32(t);
                self.b.def_var(self.npc, t);
            }
            Op::Jr | Op::Jalr => {
                let t = self.r32(rs(w));
                if m == Op::Jalr {
                    self.link(rd(w), insn);
                }
                self.b.def_var(self.npc, t);
            }
            // ---------------------------------------------------- loads and stores
            Op::Lb | Op::Lbu | Op::Lh | Op::Lhu | Op::Lw | Op::Lwu | Op::Ld | Op::Lq => {
                let (size, ty) = match m {
                    Op::Lb | Op::Lbu => (1, types::I8),
                    Op::Lh | Op::Lhu => (2, types::I16),
                    Op::Lw | Op::Lwu => (4, i32t),
                    Op::Ld => (8, i64t),
                    _ => (16, i64t),
                };
                if m == Op::Lw
                    && let Some(v) = self.forwarded(w)
                {
                    self.set32(rt(w), v);
                    return true;
                }
                let ea = self.ea(w);
                let mut j = self.new_join();
                let align = if m == Op::Lq {
                    Align::Mask(15)
                } else {
                    Align::Check
                };
                let wide = m == Op::Lq;
                let tys: &[Type] = if wide { &[i64t, i64t] } else { &[ty] };
                let v = self.mem_access(ea, size, false, align, &mut j, tys, |g, host| {
                    let v = g.b.ins().load(ty, mf(), host, 0);
                    if wide {
                        vec![v, g.b.ins().load(i64t, mf(), host, 8)]
                    } else {
                        vec![v]
                    }
                });
                let r = rt(w);
                let (v, hi) = (v[0], v.get(1).copied());
                match m {
                    // Sign-extended 32-bit values (LBU and LHU's too: below 2^16), kept so.
                    Op::Lw => self.set32(r, v),
                    Op::Lb | Op::Lh => {
                        let v = self.b.ins().sextend(i32t, v);
                        self.set32(r, v);
                    }
                    Op::Lbu | Op::Lhu => {
                        let v = self.b.ins().uextend(i32t, v);
                        self.set32(r, v);
                    }
                    Op::Lwu => {
                        let v = self.b.ins().uextend(i64t, v);
                        self.set64(r, v);
                    }
                    Op::Ld => self.set64(r, v),
                    _ => {
                        let hi = hi.expect("LQ loads two doublewords");
                        self.set128(r, v, hi);
                    }
                }
                self.join(j);
            }
            Op::Sb | Op::Sh | Op::Sw | Op::Sd | Op::Sq => {
                let size = match m {
                    Op::Sb => 1,
                    Op::Sh => 2,
                    Op::Sw => 4,
                    Op::Sd => 8,
                    _ => 16,
                };
                let ea = self.ea(w);
                let mut j = self.new_join();
                let align = if m == Op::Sq {
                    Align::Mask(15)
                } else {
                    Align::Check
                };
                let r = rt(w);
                let v = self.r64(r);
                let (v, h) = match size {
                    1 => (self.b.ins().ireduce(types::I8, v), None),
                    2 => (self.b.ins().ireduce(types::I16, v), None),
                    4 => (self.b.ins().ireduce(i32t, v), None),
                    8 => (v, None),
                    _ => (v, Some(self.r64h(r))),
                };
                self.mem_access(ea, size, true, align, &mut j, &[], |g, host| {
                    g.b.ins().store(mf(), v, host, 0);
                    if let Some(h) = h {
                        g.b.ins().store(mf(), h, host, 8);
                    }
                    vec![]
                });
                self.join(j);
                if m == Op::Sw && rs(w) != 0 {
                    // Past this point the word is in memory (RAM or the scratchpad: the slow
                    // path leaves the block).
                    self.stored_now = Some((rs(w), simm(w), v));
                }
            }
            Op::Lwl | Op::Lwr | Op::Ldl | Op::Ldr => {
                // The aligned word (doubleword) holding the addressed byte, merged into rt.
                let wide = matches!(m, Op::Ldl | Op::Ldr);
                let (bytes, ty) = if wide { (8u32, i64t) } else { (4, i32t) };
                let ea = self.ea(w);
                let mut j = self.new_join();
                let mem = self.mem_access(
                    ea,
                    bytes,
                    false,
                    Align::Mask(bytes - 1),
                    &mut j,
                    &[ty],
                    |g, host| vec![g.b.ins().load(ty, mf(), host, 0)],
                )[0];
                let sh = self.b.ins().band_imm_s(ea, (bytes - 1) as i64);
                let sh = self.b.ins().ishl_imm_s(sh, 3);
                let sh = if wide {
                    self.b.ins().uextend(i64t, sh)
                } else {
                    sh
                };
                let top = 8 * bytes as i64 - 8;
                let r = rt(w);
                let old = self.r64(r);
                let top = self.b.ins().iconst(ty, top);
                let inv = self.b.ins().isub(top, sh);
                match m {
                    Op::Lwl => {
                        let old = self.b.ins().ireduce(i32t, old);
                        let k = self.c32(0x00ff_ffff);
                        let keep = self.b.ins().ushr(k, sh);
                        let kept = self.b.ins().band(old, keep);
                        let new = self.b.ins().ishl(mem, inv);
                        let v = self.b.ins().bor(kept, new);
                        self.set32(r, v);
                    }
                    Op::Lwr => {
                        // Aligned: the whole word, sign-extended; otherwise bits 32-63 stay.
                        let old32 = self.b.ins().ireduce(i32t, old);
                        let k = self.c32(0xffff_ff00);
                        let keep = self.b.ins().ishl(k, inv);
                        let kept = self.b.ins().band(old32, keep);
                        let new = self.b.ins().ushr(mem, sh);
                        let v = self.b.ins().bor(kept, new);
                        let v = self.b.ins().uextend(i64t, v);
                        let upper = self.b.ins().band_imm_s(old, !0xffff_ffffi64);
                        let merged = self.b.ins().bor(upper, v);
                        let full = self.b.ins().sextend(i64t, mem);
                        let v = self.b.ins().select(sh, merged, full);
                        self.set64(r, v);
                    }
                    Op::Ldl => {
                        let k = self.c64(0x00ff_ffff_ffff_ffff);
                        let keep = self.b.ins().ushr(k, sh);
                        let kept = self.b.ins().band(old, keep);
                        let new = self.b.ins().ishl(mem, inv);
                        let v = self.b.ins().bor(kept, new);
                        self.set64(r, v);
                    }
                    _ => {
                        // 0xff..ff00 << 56 is 0: nothing kept when aligned.
                        let k = self.c64(0xffff_ffff_ffff_ff00);
                        let keep = self.b.ins().ishl(k, inv);
                        let kept = self.b.ins().band(old, keep);
                        let new = self.b.ins().ushr(mem, sh);
                        let v = self.b.ins().bor(kept, new);
                        self.set64(r, v);
                    }
                }
                self.join(j);
            }
            Op::Swl | Op::Swr | Op::Sdl | Op::Sdr => {
                // Read-modify-write of the aligned word (doubleword) holding the addressed byte.
                let wide = matches!(m, Op::Sdl | Op::Sdr);
                let (bytes, ty) = if wide { (8u32, i64t) } else { (4, i32t) };
                let ea = self.ea(w);
                let mut j = self.new_join();
                let sh = self.b.ins().band_imm_s(ea, (bytes - 1) as i64);
                let sh = self.b.ins().ishl_imm_s(sh, 3);
                let sh = if wide {
                    self.b.ins().uextend(i64t, sh)
                } else {
                    sh
                };
                let top = 8 * bytes as i64 - 8;
                let v = self.r64(rt(w));
                let v = if wide {
                    v
                } else {
                    self.b.ins().ireduce(i32t, v)
                };
                let (keep, new) = if matches!(m, Op::Swl | Op::Sdl) {
                    // 0xff..ff00 << top is 0: nothing of memory kept at the last byte.
                    let k = self.b.ins().iconst(
                        ty,
                        if wide {
                            0xffff_ffff_ffff_ff00u64 as i64
                        } else {
                            0xffff_ff00u32 as i32 as i64
                        },
                    );
                    let keep = self.b.ins().ishl(k, sh);
                    let top = self.b.ins().iconst(ty, top);
                    let inv = self.b.ins().isub(top, sh);
                    (keep, self.b.ins().ushr(v, inv))
                } else {
                    let one = self.b.ins().iconst(ty, 1);
                    let bit = self.b.ins().ishl(one, sh);
                    (self.add_imm(bit, -1), self.b.ins().ishl(v, sh))
                };
                self.mem_access(
                    ea,
                    bytes,
                    true,
                    Align::Mask(bytes - 1),
                    &mut j,
                    &[],
                    |g, host| {
                        let mem = g.b.ins().load(ty, mf(), host, 0);
                        let kept = g.b.ins().band(mem, keep);
                        let out = g.b.ins().bor(kept, new);
                        g.b.ins().store(mf(), out, host, 0);
                        vec![]
                    },
                );
                self.join(j);
            }
            // ---------------------------------------------------- MMI (128-bit)
            Op::Pand | Op::Por | Op::Pxor | Op::Pnor => {
                let a = [self.r64(rs(w)), self.r64h(rs(w))];
                let c = [self.r64(rt(w)), self.r64h(rt(w))];
                let v: [Value; 2] = std::array::from_fn(|i| match m {
                    Op::Pand => self.b.ins().band(a[i], c[i]),
                    Op::Por => self.b.ins().bor(a[i], c[i]),
                    Op::Pxor => self.b.ins().bxor(a[i], c[i]),
                    _ => {
                        let o = self.b.ins().bor(a[i], c[i]);
                        self.b.ins().bnot(o)
                    }
                });
                self.set128(rd(w), v[0], v[1]);
            }
            Op::Pcpyld | Op::Pcpyud => {
                let (lo, hi) = if m == Op::Pcpyld {
                    (self.r64(rt(w)), self.r64(rs(w)))
                } else {
                    (self.r64h(rs(w)), self.r64h(rt(w)))
                };
                self.set128(rd(w), lo, hi);
            }
            Op::Paddw | Op::Psubw => {
                let a = self.vec(rs(w));
                let c = self.vec(rt(w));
                let v = if m == Op::Paddw {
                    self.b.ins().iadd(a, c)
                } else {
                    self.b.ins().isub(a, c)
                };
                let r = rd(w);
                if r != 0 {
                    self.st(v, GPR + 16 * r as i32);
                    // The whole register was written in memory: forget the cached low half.
                    self.forget(1 << r);
                }
            }
            Op::Pmfhi | Op::Pmflo => {
                let (r, base) = if m == Op::Pmfhi {
                    (R_HI, HI)
                } else {
                    (R_LO, LO)
                };
                let lo = self.r64(r);
                let hi = self.ld(i64t, base + 8);
                self.set128(rd(w), lo, hi);
            }
            Op::Pmthi | Op::Pmtlo => {
                let (r, base) = if m == Op::Pmthi {
                    (R_HI, HI)
                } else {
                    (R_LO, LO)
                };
                let lo = self.r64(rs(w));
                let hi = self.r64h(rs(w));
                self.set64(r, lo);
                self.st(hi, base + 8);
            }
            // ---------------------------------------------------- COP1 moves and memory
            Op::Mfc1 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let v = self.ld(i32t, FPR + 4 * fs(w) as i32);
                self.set32(rt(w), v);
                self.join(j);
            }
            Op::Mtc1 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let v = self.r32(rt(w));
                self.st(v, FPR + 4 * fs(w) as i32);
                self.join(j);
            }
            Op::MovS | Op::NegS | Op::AbsS => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let v = self.ld(i32t, FPR + 4 * fs(w) as i32);
                let v = match m {
                    Op::MovS => v,
                    Op::NegS => self.b.ins().bxor_imm_s(v, 0x8000_0000u32 as i32 as i64),
                    _ => self.b.ins().band_imm_s(v, 0x7fff_ffff),
                };
                self.st(v, FPR + 4 * fd(w) as i32);
                if m != Op::MovS {
                    // NEG.S and ABS.S clear the O and U cause bits.
                    self.update_fcr31(fcr31::O | fcr31::U, None);
                }
                self.join(j);
            }
            Op::AddS
            | Op::SubS
            | Op::MulS
            | Op::AddaS
            | Op::SubaS
            | Op::MulaS
            | Op::MaddS
            | Op::MsubS
            | Op::MaddaS
            | Op::MsubaS => {
                // The arithmetic is the interpreter's own (crate::ctx::h_fadd...: the PS2's
                // adder and multiplier, bit for bit); the operands, the result and FCR31 are
                // native loads and stores, with no GPR written back around the call.
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let (helper, to_acc): (extern "C" fn(u32, u32, u32) -> u64, bool) = match m {
                    Op::AddS => (h_fadd, false),
                    Op::SubS => (h_fsub, false),
                    Op::MulS => (h_fmul, false),
                    Op::AddaS => (h_fadd, true),
                    Op::SubaS => (h_fsub, true),
                    Op::MulaS => (h_fmul, true),
                    Op::MaddS => (h_fmadd, false),
                    Op::MsubS => (h_fmsub, false),
                    Op::MaddaS => (h_fmadd, true),
                    _ => (h_fmsub, true),
                };
                let acc = if matches!(m, Op::MaddS | Op::MsubS | Op::MaddaS | Op::MsubaS) {
                    self.ld(i32t, FPU_ACC)
                } else {
                    self.c32(0)
                };
                let a = self.ld(i32t, FPR + 4 * fs(w) as i32);
                let c = self.ld(i32t, FPR + 4 * ft(w) as i32);
                let f = self.c64(helper as *const () as usize as u64);
                let call = self.b.ins().call_indirect(self.fsig, f, &[acc, a, c]);
                let r = self.b.inst_results(call)[0];
                let bits = self.b.ins().ireduce(i32t, r);
                let set = self.b.ins().ushr_imm_s(r, 32);
                let set = self.b.ins().ireduce(i32t, set);
                self.st(
                    bits,
                    if to_acc {
                        FPU_ACC
                    } else {
                        FPR + 4 * fd(w) as i32
                    },
                );
                self.update_fcr31(fcr31::O | fcr31::U, Some(set));
                self.join(j);
            }
            Op::CFS | Op::CEqS | Op::CLtS | Op::CLeS => {
                // FCR31.C from the values' order as piney_ee::float orders them: exponent 0 is
                // zero (either sign), exponent 255 finite, so the sign and the magnitude bits
                // order every value.
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let cond = if m == Op::CFS {
                    self.c32(0)
                } else {
                    let a = self.ld(i32t, FPR + 4 * fs(w) as i32);
                    let c = self.ld(i32t, FPR + 4 * ft(w) as i32);
                    let (ka, kc) = (self.float_order_key(a), self.float_order_key(c));
                    let cc = match m {
                        Op::CEqS => IntCC::Equal,
                        Op::CLtS => IntCC::SignedLessThan,
                        _ => IntCC::SignedLessThanOrEqual,
                    };
                    let t = self.b.ins().icmp(cc, ka, kc);
                    self.b.ins().uextend(i32t, t)
                };
                let set = self
                    .b
                    .ins()
                    .ishl_imm_s(cond, fcr31::C.trailing_zeros() as i64);
                self.update_fcr31(fcr31::C, Some(set));
                self.join(j);
            }
            Op::Bc1f | Op::Bc1t | Op::Bc1fl | Op::Bc1tl => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let fcr = self.ld(i32t, FCR31);
                let c = self.b.ins().band_imm_s(fcr, fcr31::C as i64);
                let cc = if matches!(m, Op::Bc1t | Op::Bc1tl) {
                    IntCC::NotEqual
                } else {
                    IntCC::Equal
                };
                let taken = self.b.ins().icmp_imm_s(cc, c, 0);
                self.join(j);
                let t = self.c32(branch_target(insn));
                self.branch_to(insn, taken, t);
            }
            Op::Lwc1 | Op::Swc1 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU1, &mut j);
                let ea = self.ea(w);
                let store = m == Op::Swc1;
                if store {
                    let v = self.ld(i32t, FPR + 4 * ft(w) as i32);
                    self.mem_access(ea, 4, true, Align::Check, &mut j, &[], |g, host| {
                        g.b.ins().store(mf(), v, host, 0);
                        vec![]
                    });
                } else {
                    let v =
                        self.mem_access(ea, 4, false, Align::Check, &mut j, &[i32t], |g, host| {
                            vec![g.b.ins().load(i32t, mf(), host, 0)]
                        })[0];
                    self.st(v, FPR + 4 * ft(w) as i32);
                }
                self.join(j);
            }
            // ---------------------------------------------------- COP2 moves and memory
            // The .I forms (bit 0) wait for VU0 (the COP2 interlock): the interpreter's.
            Op::Qmfc2 | Op::Qmtc2 if w & 1 != 0 => return false,
            Op::Qmfc2 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU2, &mut j);
                let lo = self.ld(i64t, VF + 16 * fs(w) as i32);
                let hi = self.ld(i64t, VF + 16 * fs(w) as i32 + 8);
                self.set128(rt(w), lo, hi);
                self.join(j);
            }
            Op::Qmtc2 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU2, &mut j);
                if fs(w) != 0 {
                    let lo = self.r64(rt(w));
                    let hi = self.r64h(rt(w));
                    self.st(lo, VF + 16 * fs(w) as i32);
                    self.st(hi, VF + 16 * fs(w) as i32 + 8);
                }
                self.join(j);
            }
            Op::Lqc2 | Op::Sqc2 => {
                let mut j = self.new_join();
                self.cop_guard(st::CU2, &mut j);
                let ea = self.ea(w);
                let store = m == Op::Sqc2;
                let r = ft(w);
                let align = Align::Mask(15);
                if store {
                    let lo = self.ld(i64t, VF + 16 * r as i32);
                    let hi = self.ld(i64t, VF + 16 * r as i32 + 8);
                    self.mem_access(ea, 16, true, align, &mut j, &[], |g, host| {
                        g.b.ins().store(mf(), lo, host, 0);
                        g.b.ins().store(mf(), hi, host, 8);
                        vec![]
                    });
                } else {
                    // VF00 is constant: the access only checks the address.
                    let v =
                        self.mem_access(ea, 16, false, align, &mut j, &[i64t, i64t], |g, host| {
                            let lo = g.b.ins().load(i64t, mf(), host, 0);
                            vec![lo, g.b.ins().load(i64t, mf(), host, 8)]
                        });
                    if r != 0 {
                        self.st(v[0], VF + 16 * r as i32);
                        self.st(v[1], VF + 16 * r as i32 + 8);
                    }
                }
                self.join(j);
            }
            _ => return false,
        }
        true
    }
}

/// The instructions [`Gen::native`] compiles natively (for the report and the tests).
pub const NATIVE: &[Op] = &[
    Op::Addu,
    Op::Subu,
    Op::Add,
    Op::Sub,
    Op::Daddu,
    Op::Dsubu,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Nor,
    Op::Dadd,
    Op::Dsub,
    Op::Slt,
    Op::Sltu,
    Op::Movz,
    Op::Movn,
    Op::Addiu,
    Op::Addi,
    Op::Daddiu,
    Op::Daddi,
    Op::Slti,
    Op::Sltiu,
    Op::Andi,
    Op::Ori,
    Op::Xori,
    Op::Lui,
    Op::Sll,
    Op::Srl,
    Op::Sra,
    Op::Sllv,
    Op::Srlv,
    Op::Srav,
    Op::Dsll,
    Op::Dsrl,
    Op::Dsra,
    Op::Dsll32,
    Op::Dsrl32,
    Op::Dsra32,
    Op::Dsllv,
    Op::Dsrlv,
    Op::Dsrav,
    Op::Mfhi,
    Op::Mflo,
    Op::Mthi,
    Op::Mtlo,
    Op::Mult,
    Op::Multu,
    Op::Div,
    Op::Divu,
    Op::Mfsa,
    Op::Mtsa,
    Op::Mtsab,
    Op::Mtsah,
    Op::Sync,
    Op::Pref,
    Op::Cache,
    Op::Beq,
    Op::Bne,
    Op::Beql,
    Op::Bnel,
    Op::Blez,
    Op::Bgtz,
    Op::Bltz,
    Op::Bgez,
    Op::Blezl,
    Op::Bgtzl,
    Op::Bltzl,
    Op::Bgezl,
    Op::Bltzal,
    Op::Bgezal,
    Op::Bltzall,
    Op::Bgezall,
    Op::J,
    Op::Jal,
    Op::Jr,
    Op::Jalr,
    Op::Lb,
    Op::Lbu,
    Op::Lh,
    Op::Lhu,
    Op::Lw,
    Op::Lwu,
    Op::Ld,
    Op::Lq,
    Op::Sb,
    Op::Sh,
    Op::Sw,
    Op::Sd,
    Op::Sq,
    Op::Lwl,
    Op::Lwr,
    Op::Ldl,
    Op::Ldr,
    Op::Swl,
    Op::Swr,
    Op::Sdl,
    Op::Sdr,
    Op::Pand,
    Op::Por,
    Op::Pxor,
    Op::Pnor,
    Op::Pcpyld,
    Op::Pcpyud,
    Op::Paddw,
    Op::Psubw,
    Op::Pmfhi,
    Op::Pmflo,
    Op::Pmthi,
    Op::Pmtlo,
    Op::Mfc1,
    Op::Mtc1,
    Op::MovS,
    Op::NegS,
    Op::AbsS,
    Op::AddS,
    Op::SubS,
    Op::MulS,
    Op::AddaS,
    Op::SubaS,
    Op::MulaS,
    Op::MaddS,
    Op::MsubS,
    Op::MaddaS,
    Op::MsubaS,
    Op::CFS,
    Op::CEqS,
    Op::CLtS,
    Op::CLeS,
    Op::Bc1f,
    Op::Bc1t,
    Op::Bc1fl,
    Op::Bc1tl,
    Op::Lwc1,
    Op::Swc1,
    Op::Qmfc2,
    Op::Qmtc2,
    Op::Lqc2,
    Op::Sqc2,
];

// ---------------------------------------------------------------- memory

/// How a native load or store's address is checked for RAM's fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cover {
    /// By itself.
    Own,
    /// For a group: the first access of the group checks, with its own address (aligned as its
    /// size requires, in RAM), the group's lowest address (`ea + lo`, aligned) and highest byte
    /// (`ea + hi`) are in RAM: every access of the group is then in RAM and aligned.
    Lead { lo: i32, hi: i32 },
    /// Checked by its group's lead (a store still checks its page for compiled code).
    Covered,
}

/// The size of a load or store that [`access_groups`] may group: those that check their
/// alignment (not LQ, SQ, LWL and kin, which mask the address).
fn group_size(op: Op) -> Option<u32> {
    Some(match op {
        Op::Lb | Op::Lbu | Op::Sb => 1,
        Op::Lh | Op::Lhu | Op::Sh => 2,
        Op::Lw | Op::Lwu | Op::Sw | Op::Lwc1 | Op::Swc1 => 4,
        Op::Ld | Op::Sd => 8,
        _ => return None,
    })
}

/// Groups of loads and stores that one check covers: on one straight path of the block (no
/// label, no branch between them), through the same base register (not written between them,
/// by any instruction), of the same size, their offsets a multiple of it apart (so that the
/// lead's alignment is everyone's). The lead is the group's first, not a delay slot (a likely
/// branch skips its slot); it checks the group's whole range, and a later access is reached
/// only through it with the same base value. A group whose range leaves RAM (or is unaligned)
/// goes to the lead's slow path, which runs the lead through the interpreter and leaves the
/// block (the rest then runs the usual way). `usable(i)`: instruction `i` may be in a group
/// (compiled natively, RAM's fast path only). Measured: a block's memory accesses through one
/// base (a structure's fields, a stack frame) mostly check once.
pub(super) fn access_groups(
    insns: &[Insn],
    labels: &[bool],
    usable: impl Fn(usize) -> bool,
) -> Vec<Cover> {
    let mut cover = vec![Cover::Own; insns.len()];
    let access = |i: usize| {
        let insn = &insns[i];
        let size = group_size(insn.info.op)?;
        usable(i).then_some((rs(insn.word), size, simm(insn.word)))
    };
    for i in 0..insns.len() {
        if cover[i] != Cover::Own || insns[i].slot {
            continue;
        }
        let Some((base, size, off)) = access(i) else {
            continue;
        };
        if reg_writes(&insns[i]) & (1 << base) != 0 && base != 0 {
            continue;
        }
        let (mut lo, mut hi) = (off, off + size as i32);
        let mut any = false;
        for k in i + 1..insns.len() {
            let insn = &insns[k];
            if labels[k] || insn.info.flags.contains(OpFlags::BRANCH) {
                break;
            }
            if let Some((b, s, o)) = access(k)
                && b == base
                && s == size
                && (o - off).rem_euclid(size as i32) == 0
            {
                cover[k] = Cover::Covered;
                lo = lo.min(o);
                hi = hi.max(o + size as i32);
                any = true;
            }
            if base != 0 && reg_writes(insn) & (1 << base) != 0 {
                break;
            }
        }
        if any {
            cover[i] = Cover::Lead {
                lo: lo - off,
                hi: hi - 1 - off,
            };
        }
    }
    cover
}

impl Gen<'_> {
    /// The value a LW reads when the word it reads was stored on the way here (see
    /// `Gen::stored`): the same base register, unchanged, and offset. (Not for a load that
    /// checks a group of accesses: theirs would go unchecked.) gcc's code for the R5900 stores
    /// a value to the stack and loads it back at once in places (around MFLO and MFHI): the
    /// load then adds no latency to the value's chain.
    pub(super) fn forwarded(&self, w: u32) -> Option<Value> {
        let (base, off, v) = self.stored?;
        (base == rs(w)
            && off == simm(w)
            && !matches!(self.cover[self.index as usize], Cover::Lead { .. }))
        .then_some(v)
    }

    /// `rs + simm`, the effective address (i32).
    pub(super) fn ea(&mut self, w: u32) -> Value {
        let b = self.r32(rs(w));
        self.add_imm(b, simm(w) as i64)
    }

    /// A `size`-byte access at `ea`: `access(gen, host)` emits it at host address `host` and
    /// returns its values (of types `tys`), or a branch to the slow path. RAM (the segment and
    /// bound by one mask test with the alignment, and for a store the code-page map) or else,
    /// for an instruction seen reaching it before (the dispatcher learns that from the
    /// interpreter and recompiles a block whose instruction took the slow path there), the
    /// scratchpad (`0x7000_0000..0x7000_4000`), each path with its own copy of the access so
    /// that the host address folds into it (base plus offset: no address add, no join before
    /// the access). An access nothing showed reaching the scratchpad has no such path: the
    /// second path and its join cost a tenth of tools/bench-compute.sh's time (measured: CPU
    /// time 223 -> 202 ms without them, compile time 34 -> 30 ms), for code that, like most,
    /// never touches the scratchpad through that instruction. `access` must not read cached
    /// registers (read them before: the two paths do not dominate each other).
    pub(super) fn mem_access<F>(
        &mut self,
        ea: Value,
        size: u32,
        store: bool,
        align: Align,
        j: &mut Join,
        tys: &[Type],
        mut access: F,
    ) -> Vec<Value>
    where
        F: FnMut(&mut Self, Value) -> Vec<Value>,
    {
        let i64t = types::I64;
        let (ea, low) = match align {
            Align::Check => (ea, size - 1),
            Align::Mask(m) => (self.b.ins().band_imm_s(ea, !(m as i64)), 0),
        };
        let with_spr = self.env.spr != 0 && self.spr[self.index as usize];
        if !with_spr && self.env.ram != 0 {
            // RAM or the slow path: the access goes on in the block, with no join.
            let p = self.ram_offset(ea, low, None, store, j);
            let host = self.host(self.env.ram, p);
            return access(self, host);
        }
        let done = self.b.create_block();
        let out: Vec<Value> = tys
            .iter()
            .map(|&t| self.b.append_block_param(done, t))
            .collect();
        let other = if with_spr {
            self.b.create_block()
        } else {
            self.slow_path(j)
        };
        if self.env.ram != 0 {
            let p = self.ram_offset(ea, low, Some(other), store, j);
            let host = self.host(self.env.ram, p);
            let v = access(self, host);
            self.jump_with(done, v);
        } else {
            self.b.ins().jump(other, &[]);
        }
        if with_spr {
            // Not RAM: the scratchpad, or the slow path (devices, faults).
            self.b.switch_to_block(other);
            let hi = self
                .b
                .ins()
                .band_imm_s(ea, (0xffff_c000 | low) as i32 as i64);
            let sbad = self.b.ins().icmp_imm_s(IntCC::NotEqual, hi, 0x7000_0000);
            self.guard(sbad, j);
            let off32 = self.b.ins().band_imm_s(ea, 0x3fff);
            let off = self.b.ins().uextend(i64t, off32);
            let host = self.host(self.env.spr, off);
            let v = access(self, host);
            self.jump_with(done, v);
        }
        self.b.switch_to_block(done);
        out
    }

    /// The host address `off` bytes into the memory at host address `base`.
    fn host(&mut self, base: u64, off: Value) -> Value {
        let base = self.c64(base);
        self.b.ins().iadd(base, off)
    }

    /// Jump to `to` with `args`.
    fn jump_with(&mut self, to: Block, args: Vec<Value>) {
        let args: Vec<BlockArg> = args.into_iter().map(BlockArg::Value).collect();
        self.b.ins().jump(to, &args);
    }

    /// The offset of `ea`'s byte from `env.ram` (an i64: the physical address, or with mirrored
    /// RAM `ea` itself), continuing in a new block when `ea` is in RAM, aligned
    /// as `low` requires, and (for a store) not on a page of compiled code; otherwise to `other`
    /// (the scratchpad's test), or the slow path when `other` is `None`.
    pub(super) fn ram_offset(
        &mut self,
        ea: Value,
        low: u32,
        other: Option<Block>,
        store: bool,
        j: &mut Join,
    ) -> Value {
        let cover = match other {
            Some(_) => Cover::Own,
            None => self.cover[self.index as usize],
        };
        if cover != Cover::Covered {
            let mut bad = self
                .b
                .ins()
                .band_imm_s(ea, (self.env.ram_mask | low) as i64);
            if let Cover::Lead { lo, hi } = cover {
                // The group's lowest address (aligned too: the offsets are a multiple of the
                // size apart) and highest byte in RAM: so is everything between (RAM's
                // addresses are one range in each segment, far apart).
                for (d, mask) in [(lo, self.env.ram_mask | low), (hi, self.env.ram_mask)] {
                    if d != 0 {
                        let a = self.add_imm(ea, d as i64);
                        let m = self.b.ins().band_imm_s(a, mask as i64);
                        bad = self.b.ins().bor(bad, m);
                    }
                }
            }
            match other {
                Some(other) => {
                    let ram = self.b.create_block();
                    self.b.ins().brif(bad, other, &[], ram, &[]);
                    self.b.switch_to_block(ram);
                }
                None => self.guard(bad, j),
            }
        }
        // The physical address: RAM's byte. Mirrored RAM shows it at the address as it is in
        // each of the four segments the test above lets through (0x0, 0x2000_0000,
        // 0x8000_0000, 0xa000_0000): no mask on the way to the access (only a store's page
        // lookup needs the physical address then).
        let physical = |g: &mut Self| {
            let p = g.b.ins().band_imm_s(ea, 0x1fff_ffff);
            g.b.ins().uextend(types::I64, p)
        };
        let p = if self.env.mirrored {
            self.b.ins().uextend(types::I64, ea)
        } else {
            physical(self)
        };
        if store {
            // A store into a page that holds compiled code takes the slow path, which drops
            // the blocks it overwrites.
            let phys = if self.env.mirrored { physical(self) } else { p };
            let pg = self.b.ins().ushr_imm_s(phys, PAGE_SHIFT as i64);
            let a = self.add_imm(pg, self.env.pages as i64);
            // Pure for Cranelift (readonly, movable): within a run of compiled code the map
            // only loses pages (a slow path's write that drops blocks, after which the code
            // leaves), never gains one (blocks are placed between runs), so a value it finds
            // stale sends a store to the slow path, which is always right; a loop's store at
            // an address that does not change then looks its page up once, before the loop.
            // Moving it above the RAM check is safe: the map has a byte for every page of the
            // 29-bit physical space, and `phys` is masked to it.
            let code = self
                .b
                .ins()
                .load(types::I8, mf().with_readonly().with_can_move(), a, 0);
            self.guard(code, j);
        }
        p
    }
}
