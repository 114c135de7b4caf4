# crt0 for piney's own guest programs (freestanding, no ps2sdk).
#
# Entry point _start: sets $gp and $sp (our own stack, from the linker
# script), clears .bss, enables interrupts the way ps2sdk's crt0 does,
# calls main(0, NULL) and ends the run with the Exit syscall (#4) and
# main's return value.

    .set    noreorder
    .set    noat

    .text
    .globl  _start
    .ent    _start
_start:
    la      $gp, _gp
    la      $sp, _stack_top

    # Clear .bss one word at a time (bounds are 4-aligned by the script).
    la      $8, __bss_start
    la      $9, _end
1:  beq     $8, $9, 2f
    nop
    sw      $0, 0($8)
    b       1b
    addiu   $8, $8, 4
2:
    # Interrupts on (Status.EIE); ps2sdk's crt0 does the same before main.
    ei

    move    $4, $0              # argc = 0
    jal     main
    move    $5, $0              # argv = NULL (delay slot)

    # Exit(main's return value): syscall number in $v1, argument in $a0.
    move    $4, $2
    li      $3, 4
    syscall
3:  b       3b                  # Exit does not return.
    nop
    .end    _start
