// piney's presenter: shows an emulated frame in a window (or an offscreen target).
//
// The frame is drawn into `rect` (the 4:3 letterbox or the whole target, black around it),
// nearest neighbour (target pixel p, relative to the rectangle, shows texel
// floor(p * size / rect_size)) or sharp bilinear (texels as solid blocks, the pixel two texels
// share mixed by its coverage: piney_frontend::layout::sharp_axis), each column's and row's
// texel and weight read from a table the CPU made (layout::axis_table: no division per
// pixel, which a CPU adapter does lane by lane). The display offset moves
// the picture (black where it left), and the optional frame-mode deflicker mixes each line
// with the line above. Everything is integer arithmetic on an
// Rgba8Uint texture read with textureLoad, so the picture is exact and equals the CPU
// reference (piney_frontend::reference) bit for bit on any backend.

struct Params {
    // The picture's rectangle in the target, in pixels: x, y, width, height.
    rect: vec4<i32>,
    // The frame's width and height in texels, then the display offset in texels (x, y).
    src: vec4<i32>,
    // x: the deflicker alpha (1..255: alpha/255 of the line above, with DEFLICKER); yzw
    // unused.
    misc: vec4<i32>,
}

// The filter and the deflicker are the pipeline's constants, not uniforms: a CPU adapter runs
// both sides of a branch on a uniform (each texel load costs it ~1.5 ns a pixel).
override SHARP: bool = true;
override DEFLICKER: bool = false;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var frame: texture_2d<u32>;
// Row 0: per column of the rectangle, row 1: per row, (texel << 9) | weight (0..=256).
@group(1) @binding(0) var axes: texture_2d<i32>;

// One triangle that covers the whole target: (-1, -1), (3, -1), (-1, 3).
@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(index & 1u) * 4 - 1);
    let y = f32(i32(index >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

// Texel t of the picture: the frame's texel t - offset, black where the picture is not.
// Straight-line code (a clamped load and a select): a CPU adapter runs branches for every
// lane.
fn texel(t: vec2<i32>) -> vec3<u32> {
    let size = params.src.xy;
    let s = t - params.src.zw;
    let inside = all(s >= vec2<i32>(0)) && all(s < size);
    let c = textureLoad(frame, clamp(s, vec2<i32>(0), size - 1), 0).rgb;
    return select(vec3<u32>(0u), c, inside);
}

// Texel t with the deflicker's line above mixed in by alpha/255 (the PCRTC's merge, rounded to
// nearest); the picture's first line and black stay as they are.
fn flickerless(t: vec2<i32>, alpha: u32) -> vec3<u32> {
    let c = texel(t);
    let up = texel(t - vec2<i32>(0, 1));
    let s = t - params.src.zw;
    let mix = all(s >= vec2<i32>(0, 1)) && all(s < params.src.xy);
    return select(c, (up * alpha + c * (255u - alpha) + vec3<u32>(127u)) / 255u, mix);
}

// Texel t as the picture shows it.
fn fetch(t: vec2<i32>) -> vec3<u32> {
    if DEFLICKER {
        return flickerless(t, u32(params.misc.x));
    }
    return texel(t);
}

// The texel and weight for pixel p of the rectangle along one axis (0: x, 1: y).
fn axis(p: i32, which: i32) -> vec2<i32> {
    let v = textureLoad(axes, vec2<i32>(p, which), 0).x;
    return vec2<i32>(v >> 9u, v & 511);
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let black = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    // The pixel's top-left corner, relative to the picture's rectangle.
    let p = vec2<i32>(floor(position.xy)) - params.rect.xy;
    if any(p < vec2<i32>(0)) || any(p >= params.rect.zw) {
        return black;
    }
    let ax = axis(p.x, 0);
    let ay = axis(p.y, 1);
    if !SHARP {
        let c = fetch(vec2<i32>(ax.x, ay.x));
        return vec4<f32>(vec3<f32>(c) / 255.0, 1.0);
    }
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
