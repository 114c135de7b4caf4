#!/usr/bin/env python3
"""Derives tests/guest/muldiv.stdout from the instruction set definition (EE Core
Instruction Set Manual semantics, written out below), independently of piney.
Run: python3 tools/guest/expect/muldiv.py > tests/guest/muldiv.stdout"""
W=0xffffffff
def s32(x): x&=W; return x-(1<<32) if x>>31 else x
V=[0x12345678,0x9abcdef0,7,0xfffffff9,0x80000000,0xffffffff,0,0x7fffffff,100,3]
INIT=dict(hi=0x11111111,lo=0x22222222,hi1=0x33333333,lo1=0x44444444,rd=0x55555555)
def div(a,b,signed):
    if signed:
        sa,sb=s32(a),s32(b)
        if sb==0: return (W if sa>=0 else 1), a
        if sa==-0x80000000 and sb==-1: return 0x80000000,0
        q=abs(sa)//abs(sb)
        if (sa<0)!=(sb<0): q=-q
        r=sa-q*sb
        return q&W, r&W
    if b==0: return W,a
    return a//b, a%b
def run(op,a,b):
    r=dict(INIT)
    p1 = op.endswith('1')
    base = op[:-1] if p1 else op
    H,L=('hi1','lo1') if p1 else ('hi','lo')
    if base in('mult','multu'):
        pr = s32(a)*s32(b) if base=='mult' else a*b
        r[H]=(pr>>32)&W; r[L]=pr&W; r['rd']=r[L]
    elif base in('div','divu'):
        q,rem=div(a,b,base=='div'); r[L]=q; r[H]=rem
    elif base in('madd','maddu'):
        acc=(r[H]<<32)|r[L]
        pr = s32(a)*s32(b) if base=='madd' else a*b
        acc=(acc+pr)&((1<<64)-1)
        r[H]=acc>>32; r[L]=acc&W; r['rd']=r[L]
    return r
o=[]
def show(op,a,b):
    r=run(op,a,b)
    o.append("%-7s %08x %08x: rd %08x hi %08x lo %08x hi1 %08x lo1 %08x"%(op,a,b,r['rd'],r['hi'],r['lo'],r['hi1'],r['lo1']))
for i in range(len(V)-1):
    a,b=V[i],V[i+1]
    for op in "mult multu mult1 multu1 div divu div1 divu1 madd maddu madd1 maddu1".split():
        show(op,a,b)
o.append("-- division corner cases")
show("div",0x80000000,W); show("div1",0x80000000,W); show("divu",0x80000000,W)
show("div",53,0); show("div",0xffffffcb,0); show("divu",0xffffffcb,0); show("div1",0xffffffcb,0); show("divu1",53,0)
o.append("-- madd accumulates across calls")
acc=3*0x10000*0x30000
o.append("3 * 0x10000*0x30000: rd %08x hi %08x lo %08x"%(acc&W,acc>>32,acc&W))
print("\n".join(o))
