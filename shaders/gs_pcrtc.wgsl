// requires: gs_common.wgsl
// The PCRTC of the wgpu renderer: the picture of both read circuits merged by PMODE, made on the
// GPU from local memory's sample planes, one invocation an output pixel. A port of piney-gs's
// pcrtc.rs (`picture`, `scaled_picture`): the CPU works out a `PictureSetup` once a frame and
// packs it here; every pixel is then the same integer arithmetic as the CPU's walk.
//
// Words 0-3: output width and height (the picture's times the scale), the scale, the output's
// row stride in pixels. 4: flags (bit 0 circuit 1 shown, bit 1 circuit 2 is the background,
// bit 2 ALP is the blend factor). 5: ALP. 6: BGCOLOR (R | G << 8 | B << 16). 7, 8: the video
// clock and line of pixel (0, 0). 9, 10: clocks and lines between picture pixels.
// 12 + 11c (c = 0 circuit 1, 1 circuit 2): X0, X1, Y0, Y1, clock step, line step, DBX, DBY,
// buffer base block, FBW, PSM.
@group(0) @binding(1) var<uniform> pp: array<vec4<u32>, 9>;
// RGBA8 pixels, R in the low byte, rows `stride` pixels apart.
@group(0) @binding(2) var<storage, read_write> picture: array<u32>;

fn prm(i: u32) -> u32 {
    return pp[i >> 2u][i & 3u];
}

// Circuit c's pixel at a video clock and line (rgb, and alpha 0-0x80 style as stored), with
// w's bit 8 set when the circuit covers that point. 5-bit channels are shifted up by 3; a
// 16-bit pixel's alpha is 0x80 when its top bit is set; 24-bit pixels have alpha 0x80.
fn circuit_pixel(c: u32, base: u32, clock: u32, line: u32) -> vec4<u32> {
    let o = 12u + 11u * c;
    if (clock < prm(o) || clock >= prm(o + 1u) || line < prm(o + 2u) || line >= prm(o + 3u)) {
        return vec4<u32>(0u);
    }
    let x = (prm(o + 6u) + (clock - prm(o)) / prm(o + 4u)) & 2047u;
    let y = (prm(o + 7u) + (line - prm(o + 2u)) / prm(o + 5u)) & 2047u;
    let psm = prm(o + 10u);
    let v = read_pixel(base, psm, x, y, prm(o + 8u), prm(o + 9u));
    switch psm {
        case 0x02u, 0x0au: {
            return vec4<u32>((v & 0x1fu) << 3u, ((v >> 5u) & 0x1fu) << 3u, ((v >> 10u) & 0x1fu) << 3u,
                0x100u | select(0u, 0x80u, (v & 0x8000u) != 0u));
        }
        case 0x01u: {
            return vec4<u32>(v & 0xffu, (v >> 8u) & 0xffu, (v >> 16u) & 0xffu, 0x180u);
        }
        default: {
            return vec4<u32>(v & 0xffu, (v >> 8u) & 0xffu, (v >> 16u) & 0xffu, 0x100u | (v >> 24u));
        }
    }
}

// a * alpha / 255 + b * (255 - alpha) / 255, rounded to nearest (pcrtc.rs `mix`).
fn mix_channel(a: u32, b: u32, alpha: u32) -> u32 {
    return (a * alpha + b * (255u - alpha) + 127u) / 255u;
}

@compute @workgroup_size(8, 8)
fn pcrtc(@builtin(global_invocation_id) gid: vec3<u32>) {
    let ox = gid.x;
    let oy = gid.y;
    if (ox >= prm(0u) || oy >= prm(1u)) {
        return;
    }
    // Sample (i, j) of picture pixel (x, y) comes from plane j * scale + i.
    let s = prm(2u);
    let plane = (oy % s) * s + (ox % s);
    let base = plane << 20u;
    let clock = prm(7u) + (ox / s) * prm(9u);
    let line = prm(8u) + (oy / s) * prm(10u);
    let flags = prm(4u);
    let bg = prm(6u);
    var back = vec3<u32>(bg & 0xffu, (bg >> 8u) & 0xffu, (bg >> 16u) & 0xffu);
    if ((flags & 2u) != 0u) {
        let b = circuit_pixel(1u, base, clock, line);
        if (b.w != 0u) {
            back = b.xyz;
        }
    }
    var col = back;
    if ((flags & 1u) != 0u) {
        let t = circuit_pixel(0u, base, clock, line);
        if (t.w != 0u) {
            var a = min((t.w & 0xffu) * 2u, 255u);
            if ((flags & 4u) != 0u) {
                a = prm(5u);
            }
            col = vec3<u32>(mix_channel(t.x, back.x, a), mix_channel(t.y, back.y, a), mix_channel(t.z, back.z, a));
        }
    }
    picture[oy * prm(3u) + ox] = col.x | (col.y << 8u) | (col.z << 16u) | 0xff000000u;
}
