#!/usr/bin/env python3
"""Derives tests/guest/loadstore.stdout from the instruction set definition (EE Core
Instruction Set Manual semantics, written out below), independently of piney.
Run: python3 tools/guest/expect/loadstore.py > tests/guest/loadstore.stdout"""
M=(1<<64)-1
def fill():
    s=[(i*0x11)&0xff for i in range(32)]; s[16]=0x80; s[17]=0xf0
    return s,[0xee]*32
src,dst=fill()
def rd(mem,a,n): return sum(mem[a+i]<<(8*i) for i in range(n))
def sx(v,bits): return (v-(1<<bits))&M if v>>(bits-1) else v
PRE=0x0102030405060708
o=[];p=o.append
p("-- extension")
p("lb %016x lbu %016x"%(sx(src[16],8),src[16]))
p("lh %016x lhu %016x"%(sx(rd(src,16,2),16),rd(src,16,2)))
p("lw %016x lwu %016x"%(sx(rd(src,16,4),32),rd(src,16,4)))
p("lw+4 %016x ld %016x"%(sx(rd(src,4,4),32),rd(src,16,8)))
def lwl(rt,addr,n=4):
    k=addr%n; w=rd(src,addr-k,n); bits=8*n; mask=(1<<bits)-1
    sh=8*(n-1-k)
    return ((w<<sh)&mask)|(rt&((1<<sh)-1))
def lwr(rt,addr,n=4):
    k=addr%n; w=rd(src,addr-k,n); bits=8*n; mask=(1<<bits)-1
    sh=8*k
    keep=(~(mask>>sh))&mask
    return (w>>sh)|(rt&keep)
p("-- lwl/lwr (low 32 bits)")
lo=PRE&0xffffffff
for k in range(4):
    a=4+k
    p("k=%d lwl %08x lwr %08x pair %08x"%(k,lwl(lo,a),lwr(lo,a),lwr(lwl(lo,a+3),a)))
p("-- ldl/ldr")
for k in range(8):
    a=8+k
    p("k=%d ldl %016x ldr %016x pair %016x"%(k,lwl(PRE,a,8),lwr(PRE,a,8),lwr(lwl(PRE,a+7,8),a,8)))
PAT=0xa1a2a3a4a5a6a7a8
def wr(mem,a,n,v):
    for i in range(n): mem[a+i]=(v>>(8*i))&0xff
def swl(mem,addr,rt,n=4):
    k=addr%n; base=addr-k; w=rd(mem,base,n); mask=(1<<(8*n))-1
    sh=8*(n-1-k)
    w=(w&~(mask>>sh)&mask)|((rt&mask)>>sh)
    wr(mem,base,n,w)
def swr(mem,addr,rt,n=4):
    k=addr%n; base=addr-k; w=rd(mem,base,n); mask=(1<<(8*n))-1
    sh=8*k
    w=(w&((1<<sh)-1))|(((rt&mask)<<sh)&mask)
    wr(mem,base,n,w)
def dump(what,k,d): p("%s %d: %s"%(what,k," ".join("%02x"%x for x in d[:16])))
p("-- swl/swr")
for k in range(4):
    s_,d=fill(); swl(d,4+k,PAT); dump("swl",k,d)
    s_,d=fill(); swr(d,4+k,PAT); dump("swr",k,d)
s_,d=fill(); swl(d,5+3,PAT); swr(d,5,PAT); dump("swl+swr at",5,d)
p("-- sdl/sdr")
for k in range(0,8,3):
    s_,d=fill(); swl(d,k,PAT,8); dump("sdl",k,d)
    s_,d=fill(); swr(d,k,PAT,8); dump("sdr",k,d)
s_,d=fill(); swl(d,3+7,PAT,8); swr(d,3,PAT,8); dump("sdl+sdr at",3,d)
p("-- sb/sh/sw/sd")
s_,d=fill(); wr(d,1,1,PAT); wr(d,2,2,PAT); wr(d,4,4,PAT); wr(d,8,8,PAT); dump("widths",0,d)
p("-- lq/sq ignore the low four address bits")
for k in range(0,16,5):
    s_,d=fill(); d[0:16]=src[16:32]; dump("lq/sq",k,d)
print("\n".join(o))
