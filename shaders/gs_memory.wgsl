// requires: gs_common.wgsl
// Local-memory passes of the wgpu renderer: host->local uploads, local->local copies and CLUT
// loads, each a port of piney-gs's mem.rs / texel.rs rule (appended to gs_common.wgsl).

// Words 0-6: destination BP, BW, PSM, X, Y, W, H; 7: first pixel; 8: pixels;
// 9-13: source BP, BW, PSM, X, Y (copies).
// 14: sample planes (every plane gets an upload; copies go plane to plane).
// CLUT loads: 0 texture PSM, 1 CPSM, 2 CBP, 3 CSM, 4 CSA, 5 COU, 6 COV, 7 CBW.
@group(0) @binding(1) var<uniform> mp: array<vec4<u32>, 4>;
@group(0) @binding(2) var<storage, read> data: array<u32>;
@group(0) @binding(3) var<storage, read_write> clut: array<u32>;

fn param(i: u32) -> u32 {
    return mp[i >> 2u][i & 3u];
}

fn index(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.y * groups.x * 64u + gid.x;
}

// Pixel n of a host->local transfer, packed as LocalMemory::write_transfer takes it.
@compute @workgroup_size(64)
fn upload(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = index(gid, groups);
    if (n >= param(8u)) {
        return;
    }
    let psm = param(2u);
    var v: u32;
    switch transfer_bits(psm) {
        case 32u: { v = data[n]; }
        case 24u: {
            let bit = n * 24u;
            let i = bit >> 5u;
            let sh = bit & 31u;
            v = data[i] >> sh;
            if (sh > 8u) {
                v = v | (data[i + 1u] << (32u - sh));
            }
            v = v & 0x00ffffffu;
        }
        case 16u: { v = (data[n >> 1u] >> ((n & 1u) * 16u)) & 0xffffu; }
        case 8u: { v = (data[n >> 2u] >> ((n & 3u) * 8u)) & 0xffu; }
        default: { v = (data[n >> 3u] >> ((n & 7u) * 4u)) & 0xfu; }
    }
    let p = param(7u) + n;
    let w = max(param(5u), 1u);
    let x = (param(3u) + p % w) & 2047u;
    let y = (param(4u) + p / w) & 2047u;
    for (var p = 0u; p < param(14u); p++) {
        write_pixel(p << 20u, psm, x, y, param(0u), param(1u), v);
    }
}

// Pixel n of a local->local copy whose rectangles do not overlap (the order does not matter).
@compute @workgroup_size(64)
fn copy(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let n = index(gid, groups);
    if (n >= param(8u)) {
        return;
    }
    let w = max(param(5u), 1u);
    let i = n % w;
    let j = n / w;
    for (var p = 0u; p < param(14u); p++) {
        let v = read_pixel(p << 20u, param(11u), (param(12u) + i) & 2047u, (param(13u) + j) & 2047u, param(9u), param(10u));
        write_pixel(p << 20u, param(2u), (param(3u) + i) & 2047u, (param(4u) + j) & 2047u, param(0u), param(1u), v);
    }
}

// CLUT entry i (CSM1: 16x16 with bits 3 and 4 of the index swapped, or 8x2; CSM2: a row at
// COU * 16, COV). A 32-bit entry keeps its halves 256 halfwords apart.
@compute @workgroup_size(64)
fn load_clut(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    let psm = param(0u);
    var entries = 16u;
    if (psm == PSM_T8 || psm == PSM_T8H) {
        entries = 256u;
    }
    if (i >= entries) {
        return;
    }
    let cpsm = param(1u);
    var x: u32;
    var y: u32;
    var bw = 1u;
    if (param(3u) == 0u) {
        if (entries == 256u) {
            let p = (i & 0xe7u) | ((i & 8u) << 1u) | ((i & 0x10u) >> 1u);
            x = p & 15u;
            y = p >> 4u;
        } else {
            x = i & 7u;
            y = i >> 3u;
        }
    } else {
        x = param(5u) * 16u + i;
        y = param(6u);
        bw = param(7u);
    }
    // From plane 0, local memory as the guest sees it.
    let v = read_pixel(0u, cpsm, x, y, param(2u), bw);
    let csa = param(4u);
    if (cpsm == PSM_CT32) {
        let e = ((csa & 15u) * 16u + i) & 255u;
        clut[e] = v & 0xffffu;
        clut[e + 256u] = v >> 16u;
    } else {
        let e = (csa * 16u + i) & 511u;
        clut[e] = v & 0xffffu;
    }
}
