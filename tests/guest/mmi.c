/* mmi: a sample of every MMI instruction group on 128-bit registers:
 * parallel add/subtract (wrapping and saturating), ABS, compares, min/max,
 * logic, pack/extend/interleave, copy/exchange/reverse/rotate, shifts,
 * PLZCW, QFSRV with MTSAB/MTSAH, MTSA/MFSA, PMFHL in every form, PMTHL, and
 * the parallel multiply/multiply-add/multiply-subtract/divide families with
 * HI/LO.
 * Registers print as four words, most significant first. */
#include "piney_rt.h"

typedef struct {
    u32 w[4];
} __attribute__((aligned(16))) q128;

static const q128 A = { { 0x7fff8000, 0x0001ffff, 0x80000000, 0x12345678 } };
static const q128 B = { { 0x00017fff, 0xffff0001, 0x7fffffff, 0x87654321 } };
static const q128 C = { { 0x00000007, 0xfffffff9, 0x00000003, 0x00000064 } };
static const q128 D = { { 0x00000002, 0x00000000, 0xfffffffd, 0x00000000 } };

static void pq(const char *name, const q128 *r)
{
    printf("%-8s %08x %08x %08x %08x\n", name, r->w[3], r->w[2], r->w[1], r->w[0]);
}

/* rd = op(rs = a, rt = b) */
#define OP(insn, a, b)                                                                \
    do {                                                                              \
        q128 r_;                                                                      \
        __asm__ volatile("lq $8, %1\n\tlq $9, %2\n\t" insn " $10, $8, $9\n\tsq $10, %0" \
                         : "=m"(r_)                                                   \
                         : "m"(a), "m"(b)                                             \
                         : "$8", "$9", "$10");                                        \
        pq(insn, &r_);                                                                \
    } while (0)
/* rd = op(rt = a) */
#define OP1(insn, a)                                                                  \
    do {                                                                              \
        q128 r_;                                                                      \
        __asm__ volatile("lq $9, %1\n\t" insn " $10, $9\n\tsq $10, %0"                \
                         : "=m"(r_)                                                   \
                         : "m"(a)                                                     \
                         : "$9", "$10");                                              \
        pq(insn, &r_);                                                                \
    } while (0)
/* rd = op(rt = a, sa) */
#define SH(insn, a, sa)                                                               \
    do {                                                                              \
        q128 r_;                                                                      \
        __asm__ volatile("lq $9, %1\n\t" insn " $10, $9, " #sa "\n\tsq $10, %0"        \
                         : "=m"(r_)                                                   \
                         : "m"(a)                                                     \
                         : "$9", "$10");                                              \
        pq(insn " " #sa, &r_);                                                        \
    } while (0)
/* rd = op(rs = a, rt = b), then HI and LO as well */
#define MUL(insn, a, b)                                                               \
    do {                                                                              \
        q128 r_, h_, l_;                                                              \
        __asm__ volatile("lq $8, %3\n\tlq $9, %4\n\tpmthi $0\n\tpmtlo $0\n\t" insn     \
                         " $10, $8, $9\n\tsq $10, %0\n\tpmfhi $11\n\tsq $11, %1\n\t"  \
                         "pmflo $11\n\tsq $11, %2"                                    \
                         : "=m"(r_), "=m"(h_), "=m"(l_)                               \
                         : "m"(a), "m"(b)                                             \
                         : "$8", "$9", "$10", "$11", "hi", "lo");                     \
        pq(insn, &r_);                                                                \
        pq("  hi", &h_);                                                              \
        pq("  lo", &l_);                                                              \
    } while (0)

/* The divides write only HI/LO: "pdivw rs, rt". */
#define DIV2(insn, a, b)                                                              \
    do {                                                                              \
        q128 h_, l_;                                                                  \
        __asm__ volatile("lq $8, %2\n\tlq $9, %3\n\t" insn " $8, $9\n\t"            \
                         "pmfhi $11\n\tsq $11, %0\n\tpmflo $11\n\tsq $11, %1"         \
                         : "=m"(h_), "=m"(l_)                                         \
                         : "m"(a), "m"(b)                                             \
                         : "$8", "$9", "$11", "hi", "lo");                            \
        pq(insn " hi", &h_);                                                          \
        pq("  lo", &l_);                                                              \
    } while (0)

int main(void)
{
    pq("A", &A);
    pq("B", &B);
    puts("-- add/sub");
    OP("paddw", A, B); OP("psubw", A, B); OP("paddh", A, B); OP("psubh", A, B);
    OP("paddb", A, B); OP("psubb", A, B);
    OP("paddsw", A, B); OP("psubsw", A, B); OP("paddsh", A, B); OP("psubsh", A, B);
    OP("paddsb", A, B); OP("psubsb", A, B);
    OP("padduw", A, B); OP("psubuw", A, B); OP("padduh", A, B); OP("psubuh", A, B);
    OP("paddub", A, B); OP("psubub", A, B);
    OP("padsbh", A, B);
    OP1("pabsw", A); OP1("pabsh", A);
    puts("-- compare/min/max/logic");
    OP("pcgtw", A, B); OP("pceqw", A, A); OP("pcgth", A, B); OP("pceqh", A, B);
    OP("pcgtb", A, B); OP("pceqb", A, B);
    OP("pmaxw", A, B); OP("pminw", A, B); OP("pmaxh", A, B); OP("pminh", A, B);
    OP("pand", A, B); OP("por", A, B); OP("pxor", A, B); OP("pnor", A, B);
    puts("-- pack/extend/interleave");
    OP("ppacw", A, B); OP("ppach", A, B); OP("ppacb", A, B);
    OP("pextlw", A, B); OP("pextuw", A, B); OP("pextlh", A, B); OP("pextuh", A, B);
    OP("pextlb", A, B); OP("pextub", A, B);
    OP("pinth", A, B); OP("pinteh", A, B);
    OP1("pext5", B); OP1("ppac5", A);
    puts("-- copy/exchange/reverse/rotate");
    OP("pcpyld", A, B); OP("pcpyud", A, B); OP1("pcpyh", A);
    OP1("pexch", A); OP1("pexcw", A); OP1("pexeh", A); OP1("pexew", A);
    OP1("prevh", A); OP1("prot3w", A);
    puts("-- shifts");
    SH("psllh", A, 4); SH("psrlh", A, 4); SH("psrah", A, 4);
    SH("psllw", A, 8); SH("psrlw", A, 8); SH("psraw", A, 8);
    OP("psllvw", A, C); OP("psrlvw", A, C); OP("psravw", A, C);
    puts("-- plzcw (low 64 bits)");
    {
        u32 r[2];
        __asm__ volatile(GP64("lq $9, %1\n\tplzcw $10, $9\n\tsd $10, %0") : "=m"(r) : "m"(A) : "$9", "$10");
        printf("plzcw A  %08x %08x\n", r[1], r[0]);
        __asm__ volatile(GP64("lq $9, %1\n\tplzcw $10, $9\n\tsd $10, %0") : "=m"(r) : "m"(C) : "$9", "$10");
        printf("plzcw C  %08x %08x\n", r[1], r[0]);
    }
    puts("-- qfsrv");
    {
        q128 r;
        __asm__ volatile("li $8, 3\n\tmtsab $8, 0\n\tlq $8, %1\n\tlq $9, %2\n\t"
                         "qfsrv $10, $8, $9\n\tsq $10, %0"
                         : "=m"(r) : "m"(A), "m"(B) : "$8", "$9", "$10");
        pq("mtsab 3", &r);
        __asm__ volatile("li $8, 5\n\tmtsah $8, 3\n\tlq $8, %1\n\tlq $9, %2\n\t"
                         "qfsrv $10, $8, $9\n\tsq $10, %0"
                         : "=m"(r) : "m"(A), "m"(B) : "$8", "$9", "$10");
        pq("mtsah 5^3", &r);
    }
    puts("-- pmfhl/pmthl (HI = B, LO = A)");
#define FHL(form)                                                                     \
    do {                                                                              \
        q128 r_;                                                                      \
        __asm__ volatile("lq $8, %1\n\tpmtlo $8\n\tlq $8, %2\n\tpmthi $8\n\t"         \
                         "pmfhl." form " $10\n\tsq $10, %0"                           \
                         : "=m"(r_) : "m"(A), "m"(B) : "$8", "$10", "hi", "lo");      \
        pq("pmfhl." form, &r_);                                                       \
    } while (0)
    FHL("lw"); FHL("uw"); FHL("slw"); FHL("lh"); FHL("sh");
    {
        q128 h, l;
        __asm__ volatile("pmthi $0\n\tpmtlo $0\n\tlq $8, %2\n\tpmthl.lw $8\n\t"
                         "pmfhi $9\n\tsq $9, %0\n\tpmflo $9\n\tsq $9, %1"
                         : "=m"(h), "=m"(l) : "m"(B) : "$8", "$9", "hi", "lo");
        pq("pmthl.lw", &h);
        pq("  lo", &l);
    }
    puts("-- multiply/divide");
    MUL("pmultw", A, B); MUL("pmultuw", A, B);
    MUL("pmulth", A, B);
    DIV2("pdivw", C, D);
    DIV2("pdivuw", B, C);
    /* Multiply-add: accumulate onto HI/LO left by a previous multiply. */
    {
        q128 r, h, l;
        __asm__ volatile("lq $8, %3\n\tlq $9, %4\n\tpmultw $0, $8, $9\n\tpmaddw $10, $8, $9\n\t"
                         "sq $10, %0\n\tpmfhi $11\n\tsq $11, %1\n\tpmflo $11\n\tsq $11, %2"
                         : "=m"(r), "=m"(h), "=m"(l) : "m"(A), "m"(B) : "$8", "$9", "$10", "$11", "hi", "lo");
        pq("pmaddw", &r); pq("  hi", &h); pq("  lo", &l);
        __asm__ volatile("lq $8, %3\n\tlq $9, %4\n\tpmulth $0, $8, $9\n\tpmaddh $10, $8, $9\n\t"
                         "sq $10, %0\n\tpmfhi $11\n\tsq $11, %1\n\tpmflo $11\n\tsq $11, %2"
                         : "=m"(r), "=m"(h), "=m"(l) : "m"(A), "m"(B) : "$8", "$9", "$10", "$11", "hi", "lo");
        pq("pmaddh", &r); pq("  hi", &h); pq("  lo", &l);
        __asm__ volatile("lq $8, %1\n\tlq $9, %2\n\tphmadh $10, $8, $9\n\tsq $10, %0"
                         : "=m"(r) : "m"(A), "m"(B) : "$8", "$9", "$10", "hi", "lo");
        pq("phmadh", &r);
        __asm__ volatile("lq $8, %2\n\tlq $9, %3\n\tpdivbw $8, $9\n\tpmflo $11\n\tsq $11, %0\n\t"
                         "pmfhi $11\n\tsq $11, %1"
                         : "=m"(l), "=m"(h) : "m"(A), "m"(C) : "$8", "$9", "$11", "hi", "lo");
        pq("pdivbw lo", &l);
        pq("  hi", &h);
        /* Multiply-subtract and unsigned multiply-add onto HI/LO = 0. */
#define ACC0(insn)                                                                    \
    __asm__ volatile("lq $8, %3\n\tlq $9, %4\n\tpmthi $0\n\tpmtlo $0\n\t" insn      \
                     " $10, $8, $9\n\tsq $10, %0\n\tpmfhi $11\n\tsq $11, %1\n\t"     \
                     "pmflo $11\n\tsq $11, %2"                                       \
                     : "=m"(r), "=m"(h), "=m"(l)                                    \
                     : "m"(A), "m"(B)                                               \
                     : "$8", "$9", "$10", "$11", "hi", "lo");                       \
    pq(insn, &r);                                                                   \
    pq("  hi", &h);                                                                 \
    pq("  lo", &l)
        ACC0("pmsubw");
        ACC0("pmadduw");
        ACC0("pmsubh");
        __asm__ volatile("lq $8, %1\n\tlq $9, %2\n\tphmsbh $10, $8, $9\n\tsq $10, %0"
                         : "=m"(r) : "m"(A), "m"(B) : "$8", "$9", "$10", "hi", "lo");
        pq("phmsbh", &r);
    }
    puts("-- SA register");
    {
        u32 sa1, sa2;
        __asm__ volatile("li $8, 0x1b\n\tmtsab $8, 0x5\n\tmfsa %0\n\t"
                         "li $8, 0x28\n\tmtsa $8\n\tmfsa %1"
                         : "=r"(sa1), "=r"(sa2) : : "$8");
        printf("mtsab 0x1b^5 -> mfsa %x; mtsa 0x28 -> mfsa %x\n", sa1, sa2);
    }
    return 0;
}
