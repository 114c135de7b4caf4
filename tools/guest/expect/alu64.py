#!/usr/bin/env python3
"""Derives tests/guest/alu64.stdout from the instruction set definition (EE Core
Instruction Set Manual semantics, written out below), independently of piney.
Run: python3 tools/guest/expect/alu64.py > tests/guest/alu64.stdout"""
M=(1<<64)-1
def s64(x): x&=M; return x-(1<<64) if x>>63 else x
def sx32(x): x&=0xffffffff; return (x | 0xffffffff00000000) if x>>31 else x
A=[0x0123456789abcdef,0xfedcba9876543210,0x7fffffff,0xffffffff80000000,0x8000000000000000,1]
N=len(A)
o=[]
p=o.append
p("-- daddu/dsubu/and/or/xor/nor/slt/sltu")
for i in range(N):
    a=A[i];b=A[(i+1)%N]
    p("%016x %016x"%(a,b))
    p("  daddu %016x dsubu %016x"%((a+b)&M,(a-b)&M))
    p("  and %016x or %016x"%(a&b,a|b))
    p("  xor %016x nor %016x"%(a^b,~(a|b)&M))
    p("  slt %x sltu %x"%(int(s64(a)<s64(b)),int(a<b)))
p("-- 32-bit ops sign-extend into 64 bits")
for i in range(N):
    a=A[i];b=A[(i+2)%N]
    p("%016x %016x: addu %016x subu %016x"%(a,b,sx32(a+b),sx32(a-b)))
p("-- shifts")
for a in A:
    p("%016x"%a)
    p("  dsll 4 %016x dsrl 4 %016x dsra 4 %016x"%((a<<4)&M,a>>4,s64(a)>>4&M))
    p("  dsll32 4 %016x dsrl32 4 %016x dsra32 4 %016x"%((a<<36)&M,a>>36,s64(a)>>36&M))
    lo=a&0xffffffff
    slo=lo-(1<<32) if lo>>31 else lo
    p("  sll 1 %016x srl 1 %016x sra 1 %016x"%(sx32(lo<<1),sx32(lo>>1),sx32(slo>>1)))
    p("  dsllv 36 %016x dsrlv 40 %016x dsrav 63 %016x"%((a<<36)&M,a>>40,s64(a)>>63&M))
    p("  dsllv 68 %016x (amount mod 64)"%((a<<4)&M))
p("-- immediates")
a=A[0]
p("daddiu -1 %016x"%((a-1)&M))
p("daddiu 0x7fff %016x"%((a+0x7fff)&M))
p("addiu 0x7fff of 7fffffff %016x"%sx32(0x7fffffff+0x7fff))
p("lui 0x8001 %016x"%sx32(0x80010000))
p("andi 0xff00 %016x ori %016x xori %016x"%(a&0xff00,a|0xffff,a^0xffff))
p("slti -1 %x sltiu -1 %x"%(int(s64(A[1])<-1),int(A[1]<M)))
p("-- movz/movn keep all 64 bits")
p("movz %016x movn %016x"%(A[1],7))
print("\n".join(o))
