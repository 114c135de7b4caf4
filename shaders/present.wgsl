// piney's presenter: shows an emulated frame in a window (or an offscreen target).
//
// The frame is drawn into `rect` (the 4:3 letterbox or the whole target, black around it),
// nearest neighbour (target pixel p, relative to the rectangle, shows texel
// floor(p * size / rect_size)) or sharp bilinear (texels as solid blocks, the pixel two texels
// share mixed by its coverage: piney_frontend::layout::sharp_axis). The display offset moves
// the picture (black where it left), and the optional frame-mode deflicker mixes each line
// with the line above. Everything is integer arithmetic on an
// Rgba8Uint texture read with textureLoad, so the picture is exact and equals the CPU
// reference (piney_frontend::reference) bit for bit on any backend.

struct Params {
    // The picture's rectangle in the target, in pixels: x, y, width, height.
    rect: vec4<i32>,
    // The frame's width and height in texels, then the display offset in texels (x, y).
    src: vec4<i32>,
    // x: the deflicker alpha (0 = off, else 1..255: alpha/255 of the line above); y: the
    // filter (0 nearest, 1 sharp bilinear); zw unused.
    misc: vec4<i32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var frame: texture_2d<u32>;

// One triangle that covers the whole target: (-1, -1), (3, -1), (-1, 3).
@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(index & 1u) * 4 - 1);
    let y = f32(i32(index >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

// Texel s of the frame after the display offset: black where the picture is not, the line
// above mixed in by the deflicker (the PCRTC's merge, rounded to nearest).
fn fetch(t: vec2<i32>) -> vec3<u32> {
    let size = params.src.xy;
    let s = t - params.src.zw;
    if any(s < vec2<i32>(0)) || any(s >= size) {
        return vec3<u32>(0u);
    }
    var c = textureLoad(frame, s, 0).rgb;
    let alpha = u32(params.misc.x);
    if alpha != 0u && s.y > 0 {
        let up = textureLoad(frame, s - vec2<i32>(0, 1), 0).rgb;
        c = (up * alpha + c * (255u - alpha) + vec3<u32>(127u)) / 255u;
    }
    return c;
}

// Sharp bilinear on one axis: the texel before pixel p's centre and the 0..=256 weight of the
// one after it (layout::sharp_axis, the same integers). ceil(256 t / size) is split so that
// nothing overflows 32 bits at 8192-pixel windows and frames.
fn sharp_axis(p: i32, rect: i32, size: i32) -> vec2<i32> {
    let num = (2 * p + 1) * size - rect;
    let den = 2 * rect;
    // floor division (num may be negative).
    var i = num / den;
    if num % den != 0 && num < 0 {
        i = i - 1;
    }
    let t = (i + 1) * rect;
    let q = t / size;
    let r = t % size;
    let ceil256 = 256 * q + (256 * r + size - 1) / size;
    let w = clamp(256 * (p + 1) - ceil256, 0, 256);
    return vec2<i32>(i, w);
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let black = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    // The pixel's top-left corner, relative to the picture's rectangle.
    let p = vec2<i32>(floor(position.xy)) - params.rect.xy;
    if any(p < vec2<i32>(0)) || any(p >= params.rect.zw) {
        return black;
    }
    let size = params.src.xy;
    if params.misc.y == 0 {
        let c = fetch((p * size) / params.rect.zw);
        return vec4<f32>(vec3<f32>(c) / 255.0, 1.0);
    }
    let ax = sharp_axis(p.x, params.rect.z, size.x);
    let ay = sharp_axis(p.y, params.rect.w, size.y);
    let wx = u32(ax.y);
    let wy = u32(ay.y);
    let c00 = fetch(vec2<i32>(ax.x, ay.x));
    let c10 = fetch(vec2<i32>(ax.x + 1, ay.x));
    let c01 = fetch(vec2<i32>(ax.x, ay.x + 1));
    let c11 = fetch(vec2<i32>(ax.x + 1, ay.x + 1));
    let bx = 256u - wx;
    let by = 256u - wy;
    let c = (c00 * bx * by + c10 * wx * by + c01 * bx * wy + c11 * wx * wy + vec3<u32>(32768u))
        >> vec3<u32>(16u);
    return vec4<f32>(vec3<f32>(c) / 255.0, 1.0);
}
