/* alu64: the R5900's 64-bit integer instructions (DADDU, DSUBU, the DSLL
 * family, 64-bit logic and compares) and the sign extension of 32-bit
 * results into the 64-bit registers. Operands go through memory with LD/SD
 * because o32 C code only sees 32-bit registers. */
#include "piney_rt.h"

static u64 A[] __attribute__((aligned(8))) = { 0x0123456789abcdefULL, 0xfedcba9876543210ULL,
                                               0x000000007fffffffULL, 0xffffffff80000000ULL,
                                               0x8000000000000000ULL, 0x0000000000000001ULL };
#define N (sizeof A / sizeof A[0])

#define RR(insn, a, b)                                                              \
    ({                                                                              \
        u64 r_;                                                                     \
        __asm__ volatile(GP64("ld $8, %1\n\tld $9, %2\n\t" insn " $10, $8, $9\n\tsd $10, %0") \
                         : "=m"(r_)                                                 \
                         : "m"(a), "m"(b)                                           \
                         : "$8", "$9", "$10");                                      \
        r_;                                                                         \
    })
/* Variable shifts take the amount in rs: "dsllv rd, rt, rs". */
#define SV(insn, a, s)                                                              \
    ({                                                                              \
        u64 r_;                                                                     \
        __asm__ volatile(GP64("ld $8, %1\n\t" insn " $10, $8, %2\n\tsd $10, %0")    \
                         : "=m"(r_)                                                 \
                         : "m"(a), "r"(s)                                           \
                         : "$8", "$10");                                            \
        r_;                                                                         \
    })
#define SI(insn, a)                                                                 \
    ({                                                                              \
        u64 r_;                                                                     \
        __asm__ volatile(GP64("ld $8, %1\n\t" insn "\n\tsd $10, %0")                \
                         : "=m"(r_)                                                 \
                         : "m"(a)                                                   \
                         : "$8", "$10");                                            \
        r_;                                                                         \
    })

int main(void)
{
    puts("-- daddu/dsubu/and/or/xor/nor/slt/sltu");
    for (unsigned i = 0; i < N; i++) {
        u64 a = A[i], b = A[(i + 1) % N];
        printf("%016llx %016llx\n", a, b);
        printf("  daddu %016llx dsubu %016llx\n", RR("daddu", a, b), RR("dsubu", a, b));
        printf("  and %016llx or %016llx\n", RR("and", a, b), RR("or", a, b));
        printf("  xor %016llx nor %016llx\n", RR("xor", a, b), RR("nor", a, b));
        printf("  slt %llx sltu %llx\n", RR("slt", a, b), RR("sltu", a, b));
    }
    puts("-- 32-bit ops sign-extend into 64 bits");
    for (unsigned i = 0; i < N; i++) {
        u64 a = A[i], b = A[(i + 2) % N];
        printf("%016llx %016llx: addu %016llx subu %016llx\n", a, b, RR("addu", a, b),
               RR("subu", a, b));
    }
    puts("-- shifts");
    for (unsigned i = 0; i < N; i++) {
        u64 a = A[i];
        printf("%016llx\n", a);
        printf("  dsll 4 %016llx dsrl 4 %016llx dsra 4 %016llx\n",
               SI("dsll $10, $8, 4", a), SI("dsrl $10, $8, 4", a), SI("dsra $10, $8, 4", a));
        printf("  dsll32 4 %016llx dsrl32 4 %016llx dsra32 4 %016llx\n",
               SI("dsll32 $10, $8, 4", a), SI("dsrl32 $10, $8, 4", a),
               SI("dsra32 $10, $8, 4", a));
        printf("  sll 1 %016llx srl 1 %016llx sra 1 %016llx\n", SI("sll $10, $8, 1", a),
               SI("srl $10, $8, 1", a), SI("sra $10, $8, 1", a));
        printf("  dsllv 36 %016llx dsrlv 40 %016llx dsrav 63 %016llx\n", SV("dsllv", a, 36),
               SV("dsrlv", a, 40), SV("dsrav", a, 63));
        printf("  dsllv 68 %016llx (amount mod 64)\n", SV("dsllv", a, 68));
    }
    puts("-- immediates");
    {
        u64 a = A[0];
        printf("daddiu -1 %016llx\n", SI("daddiu $10, $8, -1", a));
        printf("daddiu 0x7fff %016llx\n", SI("daddiu $10, $8, 0x7fff", a));
        printf("addiu 0x7fff of 7fffffff %016llx\n", SI("addiu $10, $8, 0x7fff", A[2]));
        printf("lui 0x8001 %016llx\n", SI("lui $10, 0x8001", a));
        printf("andi 0xff00 %016llx ori %016llx xori %016llx\n", SI("andi $10, $8, 0xff00", a),
               SI("ori $10, $8, 0xffff", a), SI("xori $10, $8, 0xffff", a));
        printf("slti -1 %llx sltiu -1 %llx\n", SI("slti $10, $8, -1", A[1]),
               SI("sltiu $10, $8, -1", A[1]));
    }
    puts("-- movz/movn keep all 64 bits");
    {
        u64 r1, r2;
        __asm__ volatile(GP64("ld $8, %2\n\tli $9, 0\n\tli $10, 5\n\tmovz $10, $8, $9\n\t"
                              "sd $10, %0\n\tli $10, 7\n\tmovn $10, $8, $9\n\tsd $10, %1")
                         : "=m"(r1), "=m"(r2)
                         : "m"(A[1])
                         : "$8", "$9", "$10");
        printf("movz %016llx movn %016llx\n", r1, r2);
    }
    return 0;
}
