#!/usr/bin/env python3
"""Derives tests/guest/mmi.stdout from the instruction set definition (EE Core
Instruction Set Manual semantics, written out below), independently of piney.
Run: python3 tools/guest/expect/mmi.py > tests/guest/mmi.stdout"""
W=0xffffffff
def words(q): return [(q>>(32*i))&W for i in range(4)]
def fromw(ws): return sum((w&W)<<(32*i) for i,w in enumerate(ws))
def lanes(q,bits): n=128//bits; m=(1<<bits)-1; return [(q>>(bits*i))&m for i in range(n)]
def froml(ls,bits): m=(1<<bits)-1; return sum((v&m)<<(bits*i) for i,v in enumerate(ls))
def s(v,bits): v&=(1<<bits)-1; return v-(1<<bits) if v>>(bits-1) else v
def sat_s(v,bits): lo=-(1<<(bits-1)); hi=(1<<(bits-1))-1; return max(lo,min(hi,v))
def sat_u(v,bits): return max(0,min((1<<bits)-1,v))
A=fromw([0x7fff8000,0x0001ffff,0x80000000,0x12345678])
B=fromw([0x00017fff,0xffff0001,0x7fffffff,0x87654321])
C=fromw([7,0xfffffff9,3,0x64])
D=fromw([2,0,0xfffffffd,0])
o=[]
def pq(name,q):
    w=words(q); o.append("%-8s %08x %08x %08x %08x"%(name,w[3],w[2],w[1],w[0]))
def lane_op(a,b,bits,f): return froml([f(x,y) for x,y in zip(lanes(a,bits),lanes(b,bits))],bits)
pq("A",A); pq("B",B)
o.append("-- add/sub")
pq("paddw",lane_op(A,B,32,lambda x,y:x+y)); pq("psubw",lane_op(A,B,32,lambda x,y:x-y))
pq("paddh",lane_op(A,B,16,lambda x,y:x+y)); pq("psubh",lane_op(A,B,16,lambda x,y:x-y))
pq("paddb",lane_op(A,B,8,lambda x,y:x+y)); pq("psubb",lane_op(A,B,8,lambda x,y:x-y))
for bits,suf in ((32,'w'),(16,'h'),(8,'b')):
    pq("padds"+suf,lane_op(A,B,bits,lambda x,y:sat_s(s(x,bits)+s(y,bits),bits)))
    pq("psubs"+suf,lane_op(A,B,bits,lambda x,y:sat_s(s(x,bits)-s(y,bits),bits)))
for bits,suf in ((32,'w'),(16,'h'),(8,'b')):
    pq("paddu"+suf,lane_op(A,B,bits,lambda x,y:sat_u(x+y,bits)))
    pq("psubu"+suf,lane_op(A,B,bits,lambda x,y:sat_u(x-y,bits)))
ah,bh=lanes(A,16),lanes(B,16)
pq("padsbh",froml([ah[i]-bh[i] for i in range(4)]+[ah[i]+bh[i] for i in range(4,8)],16))
pq("pabsw",froml([min(abs(s(x,32)),0x7fffffff) for x in lanes(A,32)],32))
pq("pabsh",froml([min(abs(s(x,16)),0x7fff) for x in lanes(A,16)],16))
o.append("-- compare/min/max/logic")
pq("pcgtw",lane_op(A,B,32,lambda x,y:-1 if s(x,32)>s(y,32) else 0))
pq("pceqw",lane_op(A,A,32,lambda x,y:-1 if x==y else 0))
pq("pcgth",lane_op(A,B,16,lambda x,y:-1 if s(x,16)>s(y,16) else 0))
pq("pceqh",lane_op(A,B,16,lambda x,y:-1 if x==y else 0))
pq("pcgtb",lane_op(A,B,8,lambda x,y:-1 if s(x,8)>s(y,8) else 0))
pq("pceqb",lane_op(A,B,8,lambda x,y:-1 if x==y else 0))
pq("pmaxw",lane_op(A,B,32,lambda x,y:x if s(x,32)>=s(y,32) else y))
pq("pminw",lane_op(A,B,32,lambda x,y:x if s(x,32)<=s(y,32) else y))
pq("pmaxh",lane_op(A,B,16,lambda x,y:x if s(x,16)>=s(y,16) else y))
pq("pminh",lane_op(A,B,16,lambda x,y:x if s(x,16)<=s(y,16) else y))
M128=(1<<128)-1
pq("pand",A&B); pq("por",A|B); pq("pxor",A^B); pq("pnor",~(A|B)&M128)
o.append("-- pack/extend/interleave")
rs,rt=A,B
w_s,w_t=lanes(rs,32),lanes(rt,32)
pq("ppacw",froml([w_t[0],w_t[2],w_s[0],w_s[2]],32))
h_s,h_t=lanes(rs,16),lanes(rt,16)
pq("ppach",froml([h_t[0],h_t[2],h_t[4],h_t[6],h_s[0],h_s[2],h_s[4],h_s[6]],16))
b_s,b_t=lanes(rs,8),lanes(rt,8)
pq("ppacb",froml([b_t[i] for i in range(0,16,2)]+[b_s[i] for i in range(0,16,2)],8))
def inter(t,s_,start,n): 
    r=[]
    for i in range(start,start+n): r+= [t[i],s_[i]]
    return r
pq("pextlw",froml(inter(w_t,w_s,0,2),32)); pq("pextuw",froml(inter(w_t,w_s,2,2),32))
pq("pextlh",froml(inter(h_t,h_s,0,4),16)); pq("pextuh",froml(inter(h_t,h_s,4,4),16))
pq("pextlb",froml(inter(b_t,b_s,0,8),8)); pq("pextub",froml(inter(b_t,b_s,8,8),8))
pq("pinth",froml([h_t[0],h_s[4],h_t[1],h_s[5],h_t[2],h_s[6],h_t[3],h_s[7]],16))
pq("pinteh",froml([h_t[0],h_s[0],h_t[2],h_s[2],h_t[4],h_s[4],h_t[6],h_s[6]],16))
def pext5(w):
    r=(w&0x1f)<<3 | ((w>>5)&0x1f)<<11 | ((w>>10)&0x1f)<<19 | ((w>>15)&1)<<31
    return r
pq("pext5",froml([pext5(w) for w in lanes(B,32)],32))
def ppac5(w):
    return ((w>>3)&0x1f) | ((w>>11)&0x1f)<<5 | ((w>>19)&0x1f)<<10 | ((w>>31)&1)<<15
pq("ppac5",froml([ppac5(w) for w in lanes(A,32)],32))
o.append("-- copy/exchange/reverse/rotate")
d_s,d_t=lanes(A,64),lanes(B,64)
pq("pcpyld",froml([d_t[0],d_s[0]],64)); pq("pcpyud",froml([d_s[1],d_t[1]],64))
ha=lanes(A,16)
pq("pcpyh",froml([ha[0]]*4+[ha[4]]*4,16))
def per64(h,perm): return froml([h[4*g+perm[i]] for g in range(2) for i in range(4)],16)
pq("pexch",per64(ha,[0,2,1,3]))
wa=lanes(A,32)
pq("pexcw",froml([wa[0],wa[2],wa[1],wa[3]],32))
pq("pexeh",per64(ha,[2,1,0,3]))
pq("pexew",froml([wa[2],wa[1],wa[0],wa[3]],32))
pq("prevh",per64(ha,[3,2,1,0]))
pq("prot3w",froml([wa[1],wa[2],wa[0],wa[3]],32))
o.append("-- shifts")
pq("psllh 4",froml([x<<4 for x in ha],16)); pq("psrlh 4",froml([x>>4 for x in ha],16)); pq("psrah 4",froml([s(x,16)>>4 for x in ha],16))
pq("psllw 8",froml([x<<8 for x in wa],32)); pq("psrlw 8",froml([x>>8 for x in wa],32)); pq("psraw 8",froml([s(x,32)>>8 for x in wa],32))
wc=lanes(C,32)
def sx32(v): v&=W; return v|(W<<32) if v>>31 else v
def vsh(f): 
    r=[]
    for i in (0,2):
        r.append(sx32(f(wa[i],wc[i]&31)))
    return froml(r,64)
pq("psllvw",vsh(lambda x,n:x<<n)); pq("psrlvw",vsh(lambda x,n:x>>n)); pq("psravw",vsh(lambda x,n:s(x,32)>>n))
o.append("-- plzcw (low 64 bits)")
def lz(w):
    b=w>>31; n=0
    for i in range(31,-1,-1):
        if (w>>i)&1==b: n+=1
        else: break
    return n-1
o.append("plzcw A  %08x %08x"%(lz(wa[1]),lz(wa[0])))
o.append("plzcw C  %08x %08x"%(lz(wc[1]),lz(wc[0])))
o.append("-- qfsrv")
def qfsrv(rs,rt,sa): return ((rs<<128|rt)>>sa)&M128
pq("mtsab 3",qfsrv(A,B,(3^0)*8))
pq("mtsah 5^3",qfsrv(A,B,((5&7)^3)*16))
o.append("-- pmfhl/pmthl (HI = B, LO = A)")
HI,LO=B,A
hw,lw=lanes(HI,32),lanes(LO,32)
pq("pmfhl.lw",froml([lw[0],hw[0],lw[2],hw[2]],32))
pq("pmfhl.uw",froml([lw[1],hw[1],lw[3],hw[3]],32))
def slw(i):
    v=s((hw[i]<<32)|lw[i],64); v=sat_s(v,32); return v
pq("pmfhl.slw",froml([slw(0),slw(2)],64))
hh,lh=lanes(HI,16),lanes(LO,16)
pq("pmfhl.lh",froml([lh[0],lh[2],hh[0],hh[2],lh[4],lh[6],hh[4],hh[6]],16))
pq("pmfhl.sh",froml([sat_s(s(x,32),16) for x in (lw[0],lw[1],hw[0],hw[1],lw[2],lw[3],hw[2],hw[3])],16))
bw=lanes(B,32)
pq("pmthl.lw",froml([bw[1],0,bw[3],0],32)); pq("  lo",froml([bw[0],0,bw[2],0],32))
o.append("-- multiply/divide")
def pmultw(a,b,signed,acc_hi=None,acc_lo=None):
    ws,wt=lanes(a,32),lanes(b,32); rd=[];hi=[];lo=[]
    for i in (0,2):
        p=(s(ws[i],32)*s(wt[i],32)) if signed else ws[i]*wt[i]
        if acc_hi is not None:
            p+= s((acc_hi[i]<<32)|acc_lo[i],64)
        p&=(1<<64)-1
        rd.append(p); lo.append(sx32(p&W)); hi.append(sx32(p>>32))
    return froml(rd,64),froml(hi,64),froml(lo,64)
r,h,l=pmultw(A,B,True); pq("pmultw",r); pq("  hi",h); pq("  lo",l)
r,h,l=pmultw(A,B,False); pq("pmultuw",r); pq("  hi",h); pq("  lo",l)
def pmulth(a,b,acc=None):
    hs,ht=lanes(a,16),lanes(b,16)
    p=[s(hs[i],16)*s(ht[i],16) for i in range(8)]
    if acc:
        hw_,lw_=acc
        # order of placement: LO.w0=p0, LO.w1=p1, HI.w0=p2, HI.w1=p3, LO.w2=p4, LO.w3=p5, HI.w2=p6, HI.w3=p7
        cur=[lw_[0],lw_[1],hw_[0],hw_[1],lw_[2],lw_[3],hw_[2],hw_[3]]
        p=[p[i]+s(cur[i],32) for i in range(8)]
    lo=froml([p[0],p[1],p[4],p[5]],32); hi=froml([p[2],p[3],p[6],p[7]],32)
    rd=froml([p[0],p[2],p[4],p[6]],32)
    return rd,hi,lo
r,h,l=pmulth(A,B); pq("pmulth",r); pq("  hi",h); pq("  lo",l)
def pdivw(a,b,signed):
    ws,wt=lanes(a,32),lanes(b,32); hi=[];lo=[]
    for i in (0,2):
        x,y=(s(ws[i],32),s(wt[i],32)) if signed else (ws[i],wt[i])
        q=abs(x)//abs(y); q = -q if (x<0)!=(y<0) else q
        rem=x-q*y
        lo.append(sx32(q)); hi.append(sx32(rem))
    return froml(hi,64),froml(lo,64)
h,l=pdivw(C,D,True); pq("pdivw hi",h); pq("  lo",l)
h,l=pdivw(B,C,False); pq("pdivuw hi",h); pq("  lo",l)
# pmaddw after pmultw: acc = 2*product
r0,h0,l0=pmultw(A,B,True)
r,h,l=pmultw(A,B,True,lanes(h0,32),lanes(l0,32)); pq("pmaddw",r); pq("  hi",h); pq("  lo",l)
r0,h0,l0=pmulth(A,B)
r,h,l=pmulth(A,B,(lanes(h0,32),lanes(l0,32))); pq("pmaddh",r); pq("  hi",h); pq("  lo",l)
hs,ht=lanes(A,16),lanes(B,16)
p=[s(hs[i],16)*s(ht[i],16) for i in range(8)]
pq("phmadh",froml([p[1]+p[0],p[3]+p[2],p[5]+p[4],p[7]+p[6]],32))
d=s(lanes(C,16)[0],16)
ql=[];qh=[]
for x in lanes(A,32):
    x=s(x,32); q=abs(x)//abs(d); q=-q if (x<0)!=(d<0) else q; ql.append(q); qh.append(x-q*d)
pq("pdivbw lo",froml(ql,32)); pq("  hi",froml(qh,32))
# multiply-subtract / unsigned multiply-add from HI = LO = 0
def pmsubw(a,b):
    ws,wt=lanes(a,32),lanes(b,32); rd=[];hi=[];lo=[]
    for i in (0,2):
        p=(0 - s(ws[i],32)*s(wt[i],32))&((1<<64)-1)
        rd.append(p); lo.append(sx32(p&W)); hi.append(sx32(p>>32))
    return froml(rd,64),froml(hi,64),froml(lo,64)
r,h,l=pmsubw(A,B); pq("pmsubw",r); pq("  hi",h); pq("  lo",l)
r,h,l=pmultw(A,B,False,[0]*4,[0]*4); pq("pmadduw",r); pq("  hi",h); pq("  lo",l)
hs,ht=lanes(A,16),lanes(B,16)
p=[-(s(hs[i],16)*s(ht[i],16)) for i in range(8)]
pq("pmsubh",froml([p[0],p[2],p[4],p[6]],32)); pq("  hi",froml([p[2],p[3],p[6],p[7]],32)); pq("  lo",froml([p[0],p[1],p[4],p[5]],32))
p=[s(hs[i],16)*s(ht[i],16) for i in range(8)]
pq("phmsbh",froml([p[1]-p[0],p[3]-p[2],p[5]-p[4],p[7]-p[6]],32))
o.append("-- SA register")
# SA holds a byte count (4 bits): MTSAB sets (rs ^ imm) & 15, MTSA sets rs & 15, MFSA reads it.
o.append("mtsab 0x1b^5 -> mfsa %x; mtsa 0x28 -> mfsa %x"%(((0x1b^5)&15),0x28&15))
print("\n".join(o))
