# sio_asm: a program written in assembly: main writes its message straight
# to the EE SIO transmit register (0x1000F180 through KSEG1) with byte
# stores, computes 6 * 7 with MULT and prints it as two decimal digits,
# and returns 0 to crt0 (which ends the run with the Exit syscall).

    .set    noreorder
    .text
    .globl  main
    .ent    main
main:
    lui     $8, 0xb000              # $8 = 0xb000f180, SIO TXFIFO
    ori     $8, $8, 0xf180
    la      $9, message
1:  lbu     $10, 0($9)
    beqz    $10, 2f
    addiu   $9, $9, 1               # (delay slot)
    b       1b
    sb      $10, 0($8)              # (delay slot) one byte out
2:
    li      $11, 6
    li      $12, 7
    mult    $13, $11, $12           # $13 = 42 (R5900 three-operand form)
    li      $14, 10
    divu    $0, $13, $14            # raw DIVU: LO = 4, HI = 2
    mflo    $15
    mfhi    $24
    addiu   $15, $15, '0'
    sb      $15, 0($8)
    addiu   $24, $24, '0'
    sb      $24, 0($8)
    li      $10, '\n'
    sb      $10, 0($8)
    jr      $31
    move    $2, $0                  # (delay slot) return 0
    .end    main

    .section .rodata
message:
    .asciz  "asm: 6 * 7 = "
