// The GS's local memory and its swizzles, shared by every pass of the wgpu renderer
// (crates/piney-gs-wgpu). A port of piney-gs's mem.rs: the published page/block/column tables
// computed from their bit patterns. Local memory is 1M 32-bit words; every access is atomic so
// that pixels sharing a word (16-, 8- and 4-bit formats) can be written by different invocations.
// At a render scale the buffer holds one such memory a sample plane; `base` is the plane's first
// word (plane * 1M) and addresses wrap inside it.

const PSM_CT32: u32 = 0x00u;
const PSM_CT24: u32 = 0x01u;
const PSM_CT16: u32 = 0x02u;
const PSM_CT16S: u32 = 0x0au;
const PSM_T8: u32 = 0x13u;
const PSM_T4: u32 = 0x14u;
const PSM_T8H: u32 = 0x1bu;
const PSM_T4HL: u32 = 0x24u;
const PSM_T4HH: u32 = 0x2cu;
const PSM_Z32: u32 = 0x30u;
const PSM_Z24: u32 = 0x31u;
const PSM_Z16: u32 = 0x32u;
const PSM_Z16S: u32 = 0x3au;

const WORD_MASK: u32 = 0xfffffu;
const BLOCK_MASK: u32 = 0x3fffu;

@group(0) @binding(0) var<storage, read_write> vram: array<atomic<u32>>;
// Planes 32 and up (scales 6 to 8) when one binding cannot hold them all (adapters allow 128
// MiB a binding, 32 planes); a 4-byte stand-in otherwise. SPLIT is set when the pipeline is made,
// so the unused branch is compiled out.
@group(0) @binding(5) var<storage, read_write> vram_hi: array<atomic<u32>>;
override SPLIT: bool = false;
const HI_WORDS: u32 = 32u << 20u;

fn rd_word(base: u32, a: u32) -> u32 {
    let i = base + (a & WORD_MASK);
    if (SPLIT && i >= HI_WORDS) {
        return atomicLoad(&vram_hi[i - HI_WORDS]);
    }
    return atomicLoad(&vram[i]);
}

// Only the bits set in `mask` change (two atomics rather than a branch: a software adapter
// would run both sides of it).
fn wr_masked(base: u32, a: u32, v: u32, mask: u32) {
    let i = base + (a & WORD_MASK);
    if (SPLIT && i >= HI_WORDS) {
        atomicAnd(&vram_hi[i - HI_WORDS], ~mask);
        atomicOr(&vram_hi[i - HI_WORDS], v & mask);
        return;
    }
    atomicAnd(&vram[i], ~mask);
    atomicOr(&vram[i], v & mask);
}

fn block32(bx: u32, by: u32) -> u32 {
    return (bx & 1u) | ((by & 1u) << 1u) | ((bx & 2u) << 1u) | ((by & 2u) << 2u) | ((bx & 4u) << 2u);
}

fn block16(bx: u32, by: u32) -> u32 {
    return (by & 1u) | ((bx & 1u) << 1u) | ((by & 2u) << 1u) | ((bx & 2u) << 2u) | ((by & 4u) << 2u);
}

fn block16s(bx: u32, by: u32) -> u32 {
    return (by & 1u) | ((bx & 1u) << 1u) | (by & 4u) | ((by & 2u) << 2u) | ((bx & 2u) << 3u);
}

fn column32(x: u32, y: u32) -> u32 {
    return ((y >> 1u) << 4u) | ((y & 1u) << 1u) | (x & 1u) | ((x >> 1u) << 2u);
}

fn column16(x: u32, y: u32) -> u32 {
    return ((y >> 1u) << 5u) | ((y & 1u) << 2u) | ((x & 1u) << 1u) | (((x >> 1u) & 1u) << 3u)
        | (((x >> 2u) & 1u) << 4u) | ((x >> 3u) & 1u);
}

fn column_word_8_4(xx: u32, r: u32, column: u32) -> u32 {
    return (xx & 1u) | ((r & 1u) << 1u) | (((xx >> 1u) & 1u) << 2u)
        | ((((xx >> 2u) ^ (r >> 1u) ^ column) & 1u) << 3u);
}

fn column8(x: u32, y: u32) -> u32 {
    let column = y >> 2u;
    let r = y & 3u;
    let word = column_word_8_4(x & 7u, r, column & 1u);
    let byte = ((x >> 3u) << 1u) | (r >> 1u);
    return column * 64u + word * 4u + byte;
}

fn column4(x: u32, y: u32) -> u32 {
    let column = y >> 2u;
    let r = y & 3u;
    let word = column_word_8_4(x & 7u, r, column & 1u);
    let nibble = (((x >> 3u) & 3u) << 1u) | (r >> 1u);
    return column * 128u + word * 8u + nibble;
}

fn addr32(x0: u32, y0: u32, bp: u32, bw: u32, z: bool) -> u32 {
    let x = x0 & 2047u;
    let y = y0 & 2047u;
    let page = (y >> 5u) * bw + (x >> 6u);
    var b = block32((x >> 3u) & 7u, (y >> 3u) & 3u);
    if (z) {
        b = b ^ 24u;
    }
    let block = bp + page * 32u + b;
    return ((block & BLOCK_MASK) << 6u) | column32(x & 7u, y & 7u);
}

fn addr16(x0: u32, y0: u32, bp: u32, bw: u32, s: bool, z: bool) -> u32 {
    let x = x0 & 2047u;
    let y = y0 & 2047u;
    let page = (y >> 6u) * bw + (x >> 6u);
    var b: u32;
    if (s) {
        b = block16s((x >> 4u) & 3u, (y >> 3u) & 7u);
    } else {
        b = block16((x >> 4u) & 3u, (y >> 3u) & 7u);
    }
    if (z) {
        b = b ^ 24u;
    }
    let block = bp + page * 32u + b;
    return ((block & BLOCK_MASK) << 7u) | column16(x & 15u, y & 7u);
}

fn addr8(x0: u32, y0: u32, bp: u32, bw: u32) -> u32 {
    let x = x0 & 2047u;
    let y = y0 & 2047u;
    let page = (y >> 6u) * (bw >> 1u) + (x >> 7u);
    let block = bp + page * 32u + block32((x >> 4u) & 7u, (y >> 4u) & 3u);
    return ((block & BLOCK_MASK) << 8u) | column8(x & 15u, y & 15u);
}

fn addr4(x0: u32, y0: u32, bp: u32, bw: u32) -> u32 {
    let x = x0 & 2047u;
    let y = y0 & 2047u;
    let page = (y >> 7u) * (bw >> 1u) + (x >> 7u);
    let block = bp + page * 32u + block16((x >> 5u) & 3u, (y >> 4u) & 7u);
    return ((block & BLOCK_MASK) << 9u) | column4(x & 31u, y & 15u);
}

// The address in the format's unit: words (32-bit layouts), halfwords, bytes or nibbles.
fn pixel_address(psm: u32, x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    switch psm {
        case 0x30u, 0x31u: { return addr32(x, y, bp, bw, true); }
        case 0x02u: { return addr16(x, y, bp, bw, false, false); }
        case 0x0au: { return addr16(x, y, bp, bw, true, false); }
        case 0x32u: { return addr16(x, y, bp, bw, false, true); }
        case 0x3au: { return addr16(x, y, bp, bw, true, true); }
        case 0x13u: { return addr8(x, y, bp, bw); }
        case 0x14u: { return addr4(x, y, bp, bw); }
        default: { return addr32(x, y, bp, bw, false); }
    }
}

fn transfer_bits(psm: u32) -> u32 {
    switch psm {
        case 0x00u, 0x30u: { return 32u; }
        case 0x01u, 0x31u: { return 24u; }
        case 0x02u, 0x0au, 0x32u, 0x3au: { return 16u; }
        case 0x13u, 0x1bu: { return 8u; }
        default: { return 4u; }
    }
}

fn value_mask(psm: u32) -> u32 {
    switch transfer_bits(psm) {
        case 32u: { return 0xffffffffu; }
        case 24u: { return 0x00ffffffu; }
        case 16u: { return 0xffffu; }
        case 8u: { return 0xffu; }
        default: { return 0xfu; }
    }
}

// Where a pixel's value sits: the word, the shift of its field in it, and the field's mask.
// Computed without branches, so a software adapter (which runs every branch of a divergent
// `switch` under a lane mask) makes one memory access a pixel.
struct Field {
    word: u32,
    shift: u32,
    mask: u32,
}

fn field(psm: u32, a: u32) -> Field {
    switch psm {
        case 0x00u, 0x30u: { return Field(a, 0u, 0xffffffffu); }
        case 0x01u, 0x31u: { return Field(a, 0u, 0x00ffffffu); }
        case 0x1bu: { return Field(a, 24u, 0xffu); }
        case 0x24u: { return Field(a, 24u, 0xfu); }
        case 0x2cu: { return Field(a, 28u, 0xfu); }
        case 0x02u, 0x0au, 0x32u, 0x3au: { return Field(a >> 1u, (a & 1u) * 16u, 0xffffu); }
        case 0x13u: { return Field(a >> 2u, (a & 3u) * 8u, 0xffu); }
        default: { return Field(a >> 3u, (a & 7u) * 4u, 0xfu); }
    }
}

// A pixel's stored value at its address `a` (8H/4HL/4HH shifted down to bit 0).
fn read_at(base: u32, psm: u32, a: u32) -> u32 {
    let f = field(psm, a);
    return (rd_word(base, f.word) >> f.shift) & f.mask;
}

fn read_pixel(base: u32, psm: u32, x: u32, y: u32, bp: u32, bw: u32) -> u32 {
    return read_at(base, psm, pixel_address(psm, x, y, bp, bw));
}

// Writes a pixel's value at its address; only the format's bits change.
fn write_at(base: u32, psm: u32, a: u32, v: u32) {
    let f = field(psm, a);
    wr_masked(base, f.word, (v & f.mask) << f.shift, f.mask << f.shift);
}

fn write_pixel(base: u32, psm: u32, x: u32, y: u32, bp: u32, bw: u32, v: u32) {
    write_at(base, psm, pixel_address(psm, x, y, bp, bw), v);
}
