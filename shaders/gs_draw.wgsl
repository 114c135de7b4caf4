// requires: gs_common.wgsl
// The wgpu renderer's draw pass (appended to gs_common.wgsl): one workgroup per 16x16 tile, one
// invocation per pixel, walking the tile's primitives in submission order, so each pixel sees
// its draws in order. Coverage and interpolants are piney-gs's raster.rs numbers packed by
// crates/piney-gs-wgpu/src/pack.rs (every layout is documented there); the per-pixel pipeline is
// a port of the software renderer's `pixel`, integer for integer. 64-bit values are vec2<u32>
// (low, high) in two's complement.

@group(0) @binding(1) var<storage, read> clut: array<u32>;
@group(0) @binding(2) var<storage, read> prims: array<u32>;
@group(0) @binding(3) var<storage, read> tiles: array<u32>;

fn P(i: u32) -> u32 {
    return prims[i];
}

fn P64(i: u32) -> vec2<u32> {
    return vec2<u32>(prims[i], prims[i + 1u]);
}

// ---- 64-bit arithmetic ----

fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn neg64(a: vec2<u32>) -> vec2<u32> {
    return sub64(vec2<u32>(0u, 0u), a);
}

fn is_neg64(a: vec2<u32>) -> bool {
    return (a.y >> 31u) != 0u;
}

fn abs64(a: vec2<u32>) -> vec2<u32> {
    return select(a, neg64(a), is_neg64(a));
}

fn lt64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn is_zero64(a: vec2<u32>) -> bool {
    return a.x == 0u && a.y == 0u;
}

fn shl64(a: vec2<u32>, n: u32) -> vec2<u32> {
    if (n == 0u) {
        return a;
    }
    if (n >= 32u) {
        return vec2<u32>(0u, a.x << (n - 32u));
    }
    return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
}

fn shr64(a: vec2<u32>, n: u32) -> vec2<u32> {
    if (n == 0u) {
        return a;
    }
    if (n >= 32u) {
        return vec2<u32>(a.y >> (n - 32u), 0u);
    }
    return vec2<u32>((a.x >> n) | (a.y << (32u - n)), a.y >> n);
}

// The full product of two u32.
fn mul32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let p11 = a1 * b1;
    let mid = p01 + p10;
    let mid_carry = select(0u, 0x10000u, mid < p01);
    let lo = p00 + (mid << 16u);
    let hi = p11 + (mid >> 16u) + mid_carry + select(0u, 1u, lo < p00);
    return vec2<u32>(lo, hi);
}

// a * k modulo 2^64 (exact for signed a while the true product fits).
fn mul64_u32(a: vec2<u32>, k: u32) -> vec2<u32> {
    let p = mul32(a.x, k);
    return vec2<u32>(p.x, p.y + a.y * k);
}

fn msb64(a: vec2<u32>) -> i32 {
    if (a.y != 0u) {
        return 63 - i32(countLeadingZeros(a.y));
    }
    return 31 - i32(countLeadingZeros(a.x));
}

struct DivMod {
    q: vec2<u32>,
    r: vec2<u32>,
}

// Unsigned a / b and a % b (b > 0), restoring division.
fn divmod64(a: vec2<u32>, b: vec2<u32>) -> DivMod {
    if (a.y == 0u && b.y == 0u) {
        return DivMod(vec2<u32>(a.x / b.x, 0u), vec2<u32>(a.x % b.x, 0u));
    }
    var q = vec2<u32>(0u, 0u);
    var r = vec2<u32>(0u, 0u);
    if (lt64(a, b)) {
        return DivMod(q, a);
    }
    for (var i = msb64(a); i >= 0; i--) {
        let bit = (select(a.x, a.y, i >= 32) >> (u32(i) & 31u)) & 1u;
        r = shl64(r, 1u);
        r.x = r.x | bit;
        if (!lt64(r, b)) {
            r = sub64(r, b);
            q = q | shl64(vec2<u32>(1u, 0u), u32(i));
        }
    }
    return DivMod(q, r);
}

const DIV_SATURATE: u32 = 0x80000000u;

struct Scaled {
    q: u32,
    exact: bool,
}

// raster::div_scaled: floor(a * 2^sh / b) saturated at 2^31, and whether it was exact.
fn div_scaled(a: vec2<u32>, b: vec2<u32>, sh: i32) -> Scaled {
    let d = divmod64(a, b);
    var q = d.q;
    var r = d.r;
    if (sh < 0) {
        let n = u32(-sh);
        if (n >= 64u) {
            return Scaled(0u, is_zero64(a));
        }
        let low = sub64(shl64(vec2<u32>(1u, 0u), n), vec2<u32>(1u, 0u));
        let exact = is_zero64(r) && (q.x & low.x) == 0u && (q.y & low.y) == 0u;
        let s = shr64(q, n);
        return Scaled(select(s.x, DIV_SATURATE, s.y != 0u || s.x > DIV_SATURATE), exact);
    }
    // The loop always ends within 94 steps (raster.rs explains why).
    let steps = min(sh, 128);
    for (var i = 0; i < steps; i++) {
        if (q.y != 0u || q.x >= DIV_SATURATE || (is_zero64(q) && is_zero64(r))) {
            break;
        }
        q = shl64(q, 1u);
        r = shl64(r, 1u);
        if (!lt64(r, b)) {
            r = sub64(r, b);
            q = add64(q, vec2<u32>(1u, 0u));
        }
    }
    let sat = q.y != 0u || q.x >= DIV_SATURATE;
    return Scaled(select(q.x, DIV_SATURATE, sat), is_zero64(r));
}

// raster::persp_coord.
fn persp_coord(ns: vec2<u32>, nq: vec2<u32>, sh: i32) -> i32 {
    if (is_zero64(nq)) {
        return 0;
    }
    let d = div_scaled(abs64(ns), abs64(nq), sh);
    if (is_neg64(ns) != is_neg64(nq) && !is_zero64(ns)) {
        let m = d.q + select(1u, 0u, d.exact);
        if (m > 0x40000000u) {
            return -0x40000000;
        }
        return -i32(m);
    }
    return i32(min(d.q, 0x40000000u));
}

// raster::persp_log2q.
fn persp_log2q(nq: vec2<u32>, area: vec2<u32>, unit: i32) -> i32 {
    if (is_zero64(nq)) {
        return -127 * 16;
    }
    let a = abs64(nq);
    let s = 5 + msb64(area) - msb64(a);
    let t = div_scaled(a, area, s).q;
    let et = 31 - i32(countLeadingZeros(t));
    let m = i32((t >> u32(et - 4)) & 15u);
    return (et - s + unit) * 16 + m;
}

// ---- fragments ----

struct Frag {
    rgba: vec4<i32>,
    z: u32,
    f: i32,
    u: i32,
    v: i32,
    log2q: i32,
}

fn unpack_rgba(c: u32) -> vec4<i32> {
    return vec4<i32>(i32(c & 0xffu), i32((c >> 8u) & 0xffu), i32((c >> 16u) & 0xffu), i32(c >> 24u));
}

// ---- texture ----

// State words (pack.rs STATE_*): 15 texture formats, 16-22 base pointers, 23-29 widths,
// 30-31 CLAMP, 32 TEXA, 33-34 TEX1.
fn expand16(raw: u32, texa: u32) -> vec4<i32> {
    var a: i32;
    if ((raw & 0x8000u) != 0u) {
        a = i32((texa >> 16u) & 0xffu);
    } else if (((texa >> 8u) & 1u) != 0u && (raw & 0x7fffu) == 0u) {
        a = 0;
    } else {
        a = i32(texa & 0xffu);
    }
    return vec4<i32>(i32((raw & 0x1fu) << 3u), i32(((raw >> 5u) & 0x1fu) << 3u), i32(((raw >> 10u) & 0x1fu) << 3u), a);
}

fn decode(raw: u32, psm: u32, texa: u32, cpsm: u32, csa: u32) -> vec4<i32> {
    switch psm {
        case 0x00u, 0x30u: { return unpack_rgba(raw); }
        case 0x01u, 0x31u: {
            var a = i32(texa & 0xffu);
            if (((texa >> 8u) & 1u) != 0u && (raw & 0xffffffu) == 0u) {
                a = 0;
            }
            let c = unpack_rgba(raw);
            return vec4<i32>(c.x, c.y, c.z, a);
        }
        case 0x02u, 0x0au, 0x32u, 0x3au: { return expand16(raw, texa); }
        default: {
            if (cpsm == PSM_CT32) {
                let e = ((csa & 15u) * 16u + raw) & 255u;
                return unpack_rgba(clut[e] | (clut[e + 256u] << 16u));
            }
            let e = (csa * 16u + raw) & 511u;
            return expand16(clut[e], texa);
        }
    }
}

fn wrap(c: i32, size: i32, mode: u32, mn: i32, mx: i32) -> i32 {
    switch mode {
        case 0u: { return c & (size - 1); }
        case 1u: { return clamp(c, 0, size - 1); }
        case 2u: { return clamp(c, mn, max(mx, mn)); }
        default: { return (c & mn) | mx; }
    }
}

// A draw's texture state, read once a sample (state words 15, 30-32).
struct Tex {
    psm: u32,
    cpsm: u32,
    csa: u32,
    tw: u32,
    th: u32,
    wms: u32,
    wmt: u32,
    minu: i32,
    maxu: i32,
    minv: i32,
    maxv: i32,
    texa: u32,
}

fn tex_state(so: u32) -> Tex {
    let fmt = P(so + 15u);
    let c0 = P(so + 30u);
    let c1 = P(so + 31u);
    return Tex(fmt & 0xffu, (fmt >> 8u) & 0xffu, (fmt >> 27u) & 31u, (fmt >> 16u) & 15u, (fmt >> 20u) & 15u,
        c0 & 3u, (c0 >> 2u) & 3u, i32((c0 >> 4u) & 0x3ffu), i32((c0 >> 14u) & 0x3ffu),
        i32((c0 >> 24u) | ((c1 & 3u) << 8u)), i32((c1 >> 2u) & 0x3ffu), P(so + 32u));
}

fn wrapped_texel(t: Tex, base: u32, bp: u32, bw: u32, level: u32, x: i32, y: i32) -> vec4<i32> {
    let w = max((1 << t.tw) >> level, 1);
    let h = max((1 << t.th) >> level, 1);
    let xx = wrap(x, w, t.wms, t.minu >> level, t.maxu >> level);
    let yy = wrap(y, h, t.wmt, t.minv >> level, t.maxv >> level);
    let raw = read_pixel(base, t.psm, u32(xx), u32(yy), bp, bw);
    return decode(raw, t.psm, t.texa, t.cpsm, t.csa);
}

// One mip level: nearest (one texel) or bilinear (four, texel centres at +0.5, weights in
// sixteenths), as a loop so that one copy of the texel fetch serves both.
fn sample_level(so: u32, t: Tex, base: u32, level: u32, u0: i32, v0: i32, linear: bool) -> vec4<i32> {
    let bp = P(so + 16u + level);
    let bw = P(so + 23u + level);
    let u = (u0 >> level) - select(0, 8, linear);
    let v = (v0 >> level) - select(0, 8, linear);
    let x0 = u >> 4u;
    let y0 = v >> 4u;
    let fx = u & 15;
    let fy = v & 15;
    let n = select(1u, 4u, linear);
    var sum = vec4<i32>(0);
    for (var i = 0u; i < n; i++) {
        let dx = i32(i & 1u);
        let dy = i32(i >> 1u);
        let w = select(256, select(16 - fx, fx, dx == 1) * select(16 - fy, fy, dy == 1), linear);
        sum += wrapped_texel(t, base, bp, bw, level, x0 + dx, y0 + dy) * w;
    }
    return sum >> vec4<u32>(8u);
}

// The filter and the level(s) from TEX1 and the LOD, then one or two levels (trilinear mixes
// them by the LOD's fraction).
fn sample(so: u32, base: u32, u: i32, v: i32, log2q: i32) -> vec4<i32> {
    let t0 = P(so + 33u);
    let lcm = t0 & 1u;
    let mxl = i32(min((t0 >> 2u) & 7u, 6u));
    let mmag = (t0 >> 5u) & 1u;
    let mmin = (t0 >> 6u) & 7u;
    let l = (t0 >> 19u) & 3u;
    let k = (i32(P(so + 34u) & 0xfffu) << 20u) >> 20u;
    var linear = mmag != 0u;
    var l0 = 0;
    var l1 = 0;
    var f = 0;
    var levels = 1u;
    if (!(mmin <= 1u && mmag == mmin)) {
        var lod: i32;
        if (lcm != 0u) {
            lod = k;
        } else {
            lod = ((-log2q) << l) + k;
        }
        if (lod <= 0) {
            linear = (mmag & 1u) != 0u;
        } else if (mmin == 2u || mmin == 4u) {
            l0 = min((lod + 8) >> 4u, mxl);
            linear = mmin == 4u;
        } else if (mmin == 3u || mmin == 5u) {
            l0 = min(lod >> 4u, mxl);
            l1 = min((lod >> 4u) + 1, mxl);
            f = lod & 15;
            levels = 2u;
            linear = mmin == 5u;
        } else {
            // MMIN 1 is linear; 0, 6 and 7 (undefined) nearest.
            linear = mmin == 1u;
        }
    }
    let t = tex_state(so);
    var out = vec4<i32>(0);
    for (var i = 0u; i < levels; i++) {
        let c = sample_level(so, t, base, u32(select(l0, l1, i == 1u)), u, v, linear);
        out = select(c, (out * (16 - f) + c * f) >> vec4<u32>(4u), vec4<bool>(i == 1u));
    }
    return out;
}

fn tfx(mode: u32, tcc: bool, t: vec4<i32>, f: vec4<i32>) -> vec4<i32> {
    let m = min((t * f) >> vec4<u32>(7u), vec4<i32>(255));
    switch mode {
        case 0u: { return vec4<i32>(m.xyz, select(f.w, m.w, tcc)); }
        case 1u: { return vec4<i32>(t.xyz, select(f.w, t.w, tcc)); }
        case 2u: {
            let h = min(((t.xyz * f.xyz) >> vec3<u32>(7u)) + vec3<i32>(f.w), vec3<i32>(255));
            return vec4<i32>(h, select(f.w, min(t.w + f.w, 255), tcc));
        }
        default: {
            let h = min(((t.xyz * f.xyz) >> vec3<u32>(7u)) + vec3<i32>(f.w), vec3<i32>(255));
            return vec4<i32>(h, select(f.w, t.w, tcc));
        }
    }
}

// ---- the per-pixel pipeline (SoftwareRenderer::pixel) ----

// State words 0 flags, 1 FPSM | ZPSM << 8 | SCANMSK << 16, 2 FBP, 3 FBW, 4 FBMSK, 5 ZBP,
// 6 TEST, 7 ALPHA A-D | FIX << 8, 8-11 scissor x0, x1, y0, y1, 12 FOGCOL, 13-14 DIMX.
const F_TEX: u32 = 1u;
const F_FOG: u32 = 2u;
const F_BLEND: u32 = 4u;
const F_PABE: u32 = 8u;
const F_FBA: u32 = 16u;
const F_COLCLAMP: u32 = 32u;
const F_DITHER: u32 = 64u;
const F_ZMSK: u32 = 128u;
const F_LOD_FROM_Q: u32 = 256u;
const F_COVERAGE_ALPHA: u32 = 512u;

fn pick(sel: u32, c: i32, d: i32) -> i32 {
    switch sel {
        case 0u: { return c; }
        case 1u: { return d; }
        default: { return 0; }
    }
}

// Pixel (x, y) of the sample plane starting at word `base`, texels from the plane at `tex`.
fn shade(so: u32, x: i32, y: i32, fr: Frag, base: u32, tex: u32) {
    let flags = P(so);
    if (x < i32(P(so + 8u)) || x > i32(P(so + 9u)) || y < i32(P(so + 10u)) || y > i32(P(so + 11u))
        || x < 0 || x >= 2048 || y < 0 || y >= 2048) {
        return;
    }
    let modes = P(so + 1u);
    let scanmsk = (modes >> 16u) & 3u;
    // SCANMSK 2: even lines are not drawn; 3: odd lines.
    if ((scanmsk == 2u && (y & 1) == 0) || (scanmsk == 3u && (y & 1) == 1)) {
        return;
    }
    let ux = u32(x);
    let uy = u32(y);
    var c = fr.rgba;
    if ((flags & F_TEX) != 0u) {
        let tc = sample(so, tex, fr.u, fr.v, fr.log2q);
        let fmt = P(so + 15u);
        c = tfx((fmt >> 25u) & 3u, ((fmt >> 24u) & 1u) != 0u, tc, fr.rgba);
    }
    if ((flags & F_FOG) != 0u) {
        let fc = P(so + 12u);
        let fcol = vec3<i32>(i32(fc & 0xffu), i32((fc >> 8u) & 0xffu), i32((fc >> 16u) & 0xffu));
        c = vec4<i32>((fr.f * c.xyz + (255 - fr.f) * fcol) >> vec3<u32>(8u), c.w);
    }
    // AA1 without ABE: the alpha is the coverage, 1.0 inside (piney-gs raster.rs).
    if ((flags & F_COVERAGE_ALPHA) != 0u) {
        c.w = 0x80;
    }
    var fb_write = true;
    var z_write = (flags & F_ZMSK) == 0u;
    var rgb_only = false;
    let t = P(so + 6u);
    let ate = t & 1u;
    if (ate != 0u) {
        let a = c.w;
        let r = i32((t >> 4u) & 0xffu);
        var ok: bool;
        switch (t >> 1u) & 7u {
            case 0u: { ok = false; }
            case 1u: { ok = true; }
            case 2u: { ok = a < r; }
            case 3u: { ok = a <= r; }
            case 4u: { ok = a == r; }
            case 5u: { ok = a >= r; }
            case 6u: { ok = a > r; }
            default: { ok = a != r; }
        }
        if (!ok) {
            switch (t >> 12u) & 3u {
                case 0u: { return; }
                case 1u: { z_write = false; }
                case 2u: { fb_write = false; }
                default: {
                    z_write = false;
                    rgb_only = true;
                }
            }
        }
    }
    let fpsm = modes & 0xffu;
    let zpsm = (modes >> 8u) & 0xffu;
    let fbits = transfer_bits(fpsm);
    let faddr = pixel_address(fpsm, ux, uy, P(so + 2u), P(so + 3u));
    let date = (t >> 14u) & 1u;
    let blend = (flags & F_BLEND) != 0u;
    var dst = 0u;
    if (date != 0u || (fb_write && blend)) {
        if (fbits == 16u) {
            dst = read_at(base, fpsm, faddr);
        } else {
            dst = rd_word(base, faddr);
        }
    }
    // Destination alpha test: the stored alpha's top bit must equal DATM.
    if (date != 0u) {
        var abit: u32;
        switch fbits {
            case 16u: { abit = (dst >> 15u) & 1u; }
            case 24u: { abit = 1u; }
            default: { abit = (dst >> 31u) & 1u; }
        }
        if (abit != ((t >> 15u) & 1u)) {
            return;
        }
    }
    let z = min(fr.z, value_mask(zpsm));
    let zte = (t >> 16u) & 1u;
    let ztst = (t >> 17u) & 3u;
    let ztest = zte != 0u && ztst != 1u;
    var zaddr = 0u;
    if (ztest || z_write) {
        zaddr = pixel_address(zpsm, ux, uy, P(so + 5u), P(so + 3u));
    }
    if (ztest) {
        let zd = read_at(base, zpsm, zaddr);
        var ok: bool;
        switch ztst {
            case 0u: { ok = false; }
            case 2u: { ok = z >= zd; }
            default: { ok = z > zd; }
        }
        if (!ok) {
            return;
        }
    }
    if (fb_write) {
        var d: vec4<i32>;
        switch fbits {
            case 16u: {
                d = vec4<i32>(i32((dst & 0x1fu) << 3u), i32(((dst >> 5u) & 0x1fu) << 3u),
                    i32(((dst >> 10u) & 0x1fu) << 3u), select(0, 0x80, (dst & 0x8000u) != 0u));
            }
            case 24u: {
                d = vec4<i32>(i32(dst & 0xffu), i32((dst >> 8u) & 0xffu), i32((dst >> 16u) & 0xffu), 0x80);
            }
            default: { d = unpack_rgba(dst); }
        }
        var o = c.xyz;
        // PABE: no blending where the source alpha's MSB is 0.
        if (blend && !((flags & F_PABE) != 0u && c.w < 0x80)) {
            let al = P(so + 7u);
            var cf: i32;
            switch (al >> 4u) & 3u {
                case 0u: { cf = c.w; }
                case 1u: { cf = d.w; }
                default: { cf = i32((al >> 8u) & 0xffu); }
            }
            let sa = al & 3u;
            let sb = (al >> 2u) & 3u;
            let sd = (al >> 6u) & 3u;
            // Cv = ((A - B) * C >> 7) + D, arithmetic shift.
            o = vec3<i32>(
                (((pick(sa, c.x, d.x) - pick(sb, c.x, d.x)) * cf) >> 7u) + pick(sd, c.x, d.x),
                (((pick(sa, c.y, d.y) - pick(sb, c.y, d.y)) * cf) >> 7u) + pick(sd, c.y, d.y),
                (((pick(sa, c.z, d.z) - pick(sb, c.z, d.z)) * cf) >> 7u) + pick(sd, c.z, d.z));
        }
        if ((flags & F_DITHER) != 0u) {
            let sh = (uy & 3u) * 16u + (ux & 3u) * 4u;
            let word = select(P(so + 13u), P(so + 14u), sh >= 32u);
            let dv = (i32((word >> (sh & 31u)) & 7u) << 29u) >> 29u;
            o = o + vec3<i32>(dv);
        }
        // COLCLAMP 1 clamps to 0..255, 0 keeps the low 8 bits.
        if ((flags & F_COLCLAMP) != 0u) {
            o = clamp(o, vec3<i32>(0), vec3<i32>(255));
        } else {
            o = o & vec3<i32>(0xff);
        }
        var a = u32(c.w & 0xff);
        if ((flags & F_FBA) != 0u) {
            a = a | 0x80u;
        }
        var mask = P(so + 4u);
        if (rgb_only) {
            mask = mask | 0xff000000u;
        }
        let ou = vec3<u32>(o);
        if (fbits == 16u) {
            let v = (ou.x >> 3u) | ((ou.y >> 3u) << 5u) | ((ou.z >> 3u) << 10u) | ((a >> 7u) << 15u);
            // The 32-bit FBMSK's bits at the 5:5:5:1 positions.
            let keep = ((mask >> 3u) & 0x1fu) | ((mask >> 6u) & 0x3e0u) | ((mask >> 9u) & 0x7c00u) | ((mask >> 16u) & 0x8000u);
            let sh = (faddr & 1u) * 16u;
            wr_masked(base, faddr >> 1u, (v & 0xffffu) << sh, ((~keep) & 0xffffu) << sh);
        } else {
            let v = ou.x | (ou.y << 8u) | (ou.z << 16u) | (a << 24u);
            let fmt = select(0xffffffffu, 0x00ffffffu, fbits == 24u);
            wr_masked(base, faddr, v, (~mask) & fmt);
        }
    }
    if (z_write) {
        write_at(base, zpsm, zaddr, z);
    }
}

// ---- primitives ----

const KIND_SPRITE: u32 = 0u;
const KIND_TRIANGLE: u32 = 1u;
const KIND_FRAGMENTS: u32 = 2u;

// Triangle attribute masks (pack.rs TRI_*).
const A_COL: u32 = 1u;
const A_Z: u32 = 2u;
const A_FOG: u32 = 4u;
const A_UV: u32 = 8u;
const A_PERSP: u32 = 16u;

fn bit_length(k: u32) -> u32 {
    return 32u - countLeadingZeros(k);
}

// q + dq * k + floor((r + dr * k) / den): the k-th pixel of a StepDiv (r, dr < den).
fn step_at(row: u32, cst: u32, k: u32, den: vec2<u32>) -> vec2<u32> {
    var num = add64(P64(row + 2u), mul64_u32(P64(cst + 2u), k));
    var qd = 0u;
    // The quotient is at most k.
    for (var b = i32(bit_length(k)) - 1; b >= 0; b--) {
        let t = shl64(den, u32(b));
        if (!lt64(num, t)) {
            num = sub64(num, t);
            qd = qd | (1u << u32(b));
        }
    }
    return add64(add64(P64(row), mul64_u32(P64(cst), k)), vec2<u32>(qd, 0u));
}

fn clamp_u8(v: vec2<u32>) -> i32 {
    if (is_neg64(v)) {
        return 0;
    }
    if (v.y != 0u || v.x > 255u) {
        return 255;
    }
    return i32(v.x);
}

fn triangle_frag(o: u32, so: u32, x: i32, y: i32, out: ptr<function, Frag>) -> bool {
    let j = y - i32(P(o + 2u));
    if (j < 0 || j >= i32(P(o + 3u))) {
        return false;
    }
    let row = P(o + 4u) + u32(j) * P(o + 5u);
    let lo = i32(P(row));
    if (x < lo || x >= i32(P(row + 1u))) {
        return false;
    }
    let k = u32(x - lo);
    let mask = P(o + 6u);
    let den = P64(o + 9u);
    var fr = Frag(unpack_rgba(P(o + 7u)), 0u, 0, 0, 0, i32(P(o + 8u)));
    var ro = row + 2u;
    if ((mask & A_COL) != 0u) {
        fr.rgba = vec4<i32>(clamp_u8(step_at(ro, o + 11u, k, den)), clamp_u8(step_at(ro + 4u, o + 15u, k, den)),
            clamp_u8(step_at(ro + 8u, o + 19u, k, den)), clamp_u8(step_at(ro + 12u, o + 23u, k, den)));
        ro += 16u;
    }
    if ((mask & A_Z) != 0u) {
        let z = step_at(ro, o + 27u, k, den);
        if (is_neg64(z)) {
            fr.z = 0u;
        } else if (z.y != 0u) {
            fr.z = 0xffffffffu;
        } else {
            fr.z = z.x;
        }
        ro += 4u;
    }
    if ((mask & A_FOG) != 0u) {
        fr.f = clamp_u8(step_at(ro, o + 31u, k, den));
        ro += 4u;
    }
    if ((mask & A_UV) != 0u) {
        fr.u = bitcast<i32>(step_at(ro, o + 35u, k, den).x);
        fr.v = bitcast<i32>(step_at(ro + 4u, o + 39u, k, den).x);
        ro += 8u;
    }
    if ((mask & A_PERSP) != 0u) {
        let ns = add64(P64(ro), mul64_u32(P64(o + 43u), k));
        let nt = add64(P64(ro + 2u), mul64_u32(P64(o + 45u), k));
        let nq = add64(P64(ro + 4u), mul64_u32(P64(o + 47u), k));
        fr.u = persp_coord(ns, nq, i32(P(o + 49u)));
        fr.v = persp_coord(nt, nq, i32(P(o + 50u)));
        if ((P(so) & F_LOD_FROM_Q) != 0u) {
            fr.log2q = persp_log2q(nq, den, i32(P(o + 51u)));
        }
    }
    *out = fr;
    return true;
}

fn sprite_frag(o: u32, so: u32, x: i32, y: i32, out: ptr<function, Frag>) -> bool {
    // Word 12: a one-to-one copy (reads each sample's own plane).
    let x0 = i32(P(o + 2u));
    let y0 = i32(P(o + 4u));
    if (x < x0 || x >= i32(P(o + 3u)) || y < y0 || y >= i32(P(o + 5u))) {
        return false;
    }
    var fr = Frag(unpack_rgba(P(o + 8u)), P(o + 9u), i32(P(o + 10u)), 0, 0, i32(P(o + 11u)));
    if ((P(so) & F_TEX) != 0u) {
        fr.u = i32(P(P(o + 6u) + u32(x - x0)));
        fr.v = i32(P(P(o + 7u) + u32(y - y0)));
    }
    *out = fr;
    return true;
}

fn fragment_frag(o: u32, x: i32, y: i32, out: ptr<function, Frag>) -> bool {
    var i: i32;
    if (P(o + 2u) != 0u) {
        i = x - i32(P(o + 3u));
    } else {
        i = y - i32(P(o + 3u));
    }
    if (i < 0 || i >= i32(P(o + 4u))) {
        return false;
    }
    let f = o + 5u + u32(i) * 8u;
    if (i32(P(f)) != x || i32(P(f + 1u)) != y) {
        return false;
    }
    *out = Frag(unpack_rgba(P(f + 2u)), P(f + 3u), i32(P(f + 4u)), i32(P(f + 5u)), i32(P(f + 6u)), i32(P(f + 7u)));
    return true;
}

// Tile words: word 0 the render scale N, word 1 the number of tiles; then for each tile X | Y << 16 (in tiles of the fine
// grid), the list's first word, its length. Invocation (X, Y) is sample (X % N, Y % N) of pixel
// (X / N, Y / N): triangles are sampled on the fine grid, sprites, lines and points on the
// pixel grid (every sample takes the pixel's values).
@compute @workgroup_size(16, 16)
fn draw(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>,
        @builtin(num_workgroups) groups: vec3<u32>) {
    let n = tiles[0];
    let tile = wid.y * groups.x + wid.x;
    if (tile >= tiles[1]) {
        return;
    }
    let t = 2u + tile * 3u;
    let xy = tiles[t];
    let fx = (xy & 0xffffu) * 16u + lid.x;
    let fy = (xy >> 16u) * 16u + lid.y;
    let x = i32(fx / n);
    let y = i32(fy / n);
    let plane = ((fy % n) * n + fx % n) << 20u;
    let first = tiles[t + 1u];
    let count = tiles[t + 2u];
    for (var i = 0u; i < count; i++) {
        let o = tiles[first + i];
        let so = P(o + 1u);
        // One shade call for every kind: a software adapter runs each inlined copy.
        var fr: Frag;
        var covered: bool;
        var tex = 0u;
        switch P(o) {
            case KIND_SPRITE: {
                covered = sprite_frag(o, so, x, y, &fr);
                tex = select(0u, plane, P(o + 12u) != 0u);
            }
            case KIND_TRIANGLE: { covered = triangle_frag(o, so, i32(fx), i32(fy), &fr); }
            case KIND_FRAGMENTS, default: { covered = fragment_frag(o, x, y, &fr); }
        }
        if (covered) {
            shade(so, x, y, fr, plane, tex);
        }
    }
}
