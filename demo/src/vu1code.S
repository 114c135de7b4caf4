/* vu1code.S: the VU1 microprogram, assembled from demo/vu/scene.vsm by demo/vuasm (the .bin is
   committed, so building the ELF needs only gcc). 16-byte aligned: DMA sends it by REF. */
    .section .rodata
    .balign 16
    .globl  vu1_scene_start
    .globl  vu1_scene_end
vu1_scene_start:
    .incbin "demo/vu/scene.bin"
vu1_scene_end:
