/* branch: delay slots, branch-likely nullification, the REGIMM and link
 * forms, JAL/JALR return addresses, and 64-bit register compares in
 * BEQ/BNE/BGEZ (the EE compares all 64 bits). Every case is a small block
 * of `.set noreorder` assembly that leaves its result in $8. */
#include "piney_rt.h"

#define T(name, body)                                                         \
    do {                                                                      \
        u32 r_;                                                               \
        __asm__ volatile(".set push\n\t.set noreorder\n\t"    \
                         "move $8, $0\n\t" body "\n\t.set pop\n\tmove %0, $8" \
                         : "=r"(r_)                                           \
                         :                                                    \
                         : "$8", "$9", "$10", "$11", "$31", "memory");        \
        printf("%-28s %d\n", name, (int)r_);                                  \
    } while (0)

/* For each compare-with-zero branch: value -1, 0, 1 -> taken adds 1, delay
   slot adds 10, fall-through adds 100. */
#define Z(op, v)                                                                         \
    T(#op " " #v, "addiu $9, $0, " #v "\n\t" #op " $9, 1f\n\taddiu $8, $8, 10\n\t"     \
                  "addiu $8, $8, 100\n\tb 2f\n\tnop\n1:\taddiu $8, $8, 1\n2:")
#define Z3(op) Z(op, -1); Z(op, 0); Z(op, 1)

int main(void)
{
    puts("-- delay slots (taken +1, delay +10, fall-through +100)");
    T("beq taken", "beq $0, $0, 1f\n\taddiu $8, $8, 10\n\taddiu $8, $8, 100\n1:\taddiu $8, $8, 1");
    T("bne not taken", "bne $0, $0, 1f\n\taddiu $8, $8, 10\n\taddiu $8, $8, 100\n1:\taddiu $8, $8, 1");
    T("beql taken", "beql $0, $0, 1f\n\taddiu $8, $8, 10\n\taddiu $8, $8, 100\n1:\taddiu $8, $8, 1");
    T("bnel not taken (nullified)",
      "bnel $0, $0, 1f\n\taddiu $8, $8, 10\n\taddiu $8, $8, 100\n1:\taddiu $8, $8, 1");
    T("j", "j 1f\n\taddiu $8, $8, 10\n\taddiu $8, $8, 100\n1:\taddiu $8, $8, 1");
    Z3(blez);
    Z3(bgtz);
    Z3(bltz);
    Z3(bgez);
    Z3(blezl);
    Z3(bgtzl);
    Z3(bltzl);
    Z3(bgezl);
    puts("-- links (result: $31 minus the expected return address)");
    T("bgezal taken", "bgezal $0, 1f\n\tnop\n2:\tnop\n1:\tla $9, 2b\n\tsubu $8, $31, $9");
    T("bltzal not taken links too",
      "move $31, $0\n\tbltzal $0, 1f\n\tnop\n2:\tla $9, 2b\n\tsubu $8, $31, $9\n1:");
    T("bltzall not taken",
      "move $31, $0\n\tbltzall $0, 1f\n\taddiu $8, $8, 1000\n2:\tla $9, 2b\n\tsubu $8, $31, $9\n1:");
    T("jal", "jal 1f\n\tnop\n2:\tnop\n1:\tla $9, 2b\n\tsubu $8, $31, $9");
    T("jalr rd=$10", "la $11, 1f\n\tjalr $10, $11\n\tnop\n2:\tnop\n1:\tla $9, 2b\n\tsubu $8, $10, $9");
    T("jr delay slot", "la $9, 1f\n\tjr $9\n\taddiu $8, $8, 10\n\taddiu $8, $8, 100\n1:");
    puts("-- 64-bit compares");
    T("beq upper halves differ",
      "li $9, 1\n\tdsll32 $9, $9, 0\n\tbeq $9, $0, 1f\n\tnop\n\taddiu $8, $8, 100\n1:");
    T("bne upper halves differ",
      "li $9, 1\n\tdsll32 $9, $9, 0\n\tbne $9, $0, 1f\n\tnop\n\taddiu $8, $8, 100\n1:");
    T("bgez on 0x80000000 (64-bit +)",
      "lui $9, 0x8000\n\tdsll32 $9, $9, 0\n\tdsrl32 $9, $9, 0\n\tbgez $9, 1f\n\tnop\n\t"
      "addiu $8, $8, 100\n1:\taddiu $8, $8, 1");
    T("bltz on 0x80000000 (64-bit +)",
      "lui $9, 0x8000\n\tdsll32 $9, $9, 0\n\tdsrl32 $9, $9, 0\n\tbltz $9, 1f\n\tnop\n\t"
      "addiu $8, $8, 100\n1:\taddiu $8, $8, 1");
    puts("-- loops");
    T("countdown sum with delay-slot add",
      "li $9, 10\n1:\taddu $8, $8, $9\n\tbnez $9, 1b\n\taddiu $9, $9, -1");
    T("likely loop", "li $9, 5\n1:\taddiu $9, $9, -1\n\tbnel $9, $0, 1b\n\taddiu $8, $8, 3");
    return 0;
}
