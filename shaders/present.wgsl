// piney's presenter: shows an emulated frame in a window (or an offscreen target).
//
// The frame is drawn into `rect` (the 4:3 letterbox or the whole target, black around it),
// nearest neighbour (target pixel p, relative to the rectangle, shows texel
// floor(p * size / rect_size)) or sharp bilinear (texels as solid blocks, the pixel two texels
// share mixed by its coverage: piney_frontend::layout::sharp_axis), each column's and row's
// texel and weight read from a table the CPU made (layout::axis_table: no division per
// pixel, which a CPU adapter does lane by lane). The display offset moves
// the picture (black where it left), and the optional frame-mode deflicker mixes each line
// with the line above. Everything is integer arithmetic on the bytes of Rgba8Unorm textures
// read with textureLoad (a byte b reads as b / 255, turned back by rounding b / 255 * 255), so
// the picture is exact and equals the CPU reference (piney_frontend::reference) bit for bit on
// any backend.
//
// A frame with a display offset or the deflicker takes two passes: `fs_picture` makes the
// picture at the frame's size once per frame (the offset and the deflicker applied), then
// `fs_main` scales it into the target; any other frame is scaled as it is. A CPU adapter such
// as lavapipe pays for every texture load of every lane: the deflicker in the scaling pass
// was eight loads a target pixel instead of four, and each load the offset's bounds and
// select. (Unorm, not Uint: on lavapipe the first pass into an Rgba8Uint target took about
// 1 ms longer a picture, at 512 x 448.)

struct Params {
    // The picture's rectangle in the target, in pixels: x, y, width, height.
    rect: vec4<i32>,
    // The frame's width and height in texels, then the display offset in texels (x, y).
    src: vec4<i32>,
    // x: the deflicker alpha (1..255: alpha/255 of the line above, with DEFLICKER); yzw
    // unused.
    misc: vec4<i32>,
}

// The filter and the deflicker are the pipelines' constants, not uniforms: a CPU adapter runs
// both sides of a branch on a uniform (each texel load costs it ~1.5 ns a pixel).
override SHARP: bool = true;
override DEFLICKER: bool = false;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var frame: texture_2d<f32>;
// Row 0: per column of the rectangle, row 1: per row, (texel << 9) | weight (0..=256).
@group(1) @binding(0) var axes: texture_2d<i32>;
// What `fs_main` scales: `fs_picture`'s output, or the frame itself.
@group(2) @binding(0) var picture: texture_2d<f32>;

// One triangle that covers the whole target: (-1, -1), (3, -1), (-1, 3).
@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(index & 1u) * 4 - 1);
    let y = f32(i32(index >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

// The bytes of a texel of an Rgba8Unorm texture.
fn bytes(v: vec4<f32>) -> vec3<u32> {
    return vec3<u32>(v.rgb * 255.0 + 0.5);
}

// Texel t of the picture: the frame's texel t - offset, black where the picture is not.
// Straight-line code (a clamped load and a select): a CPU adapter runs branches for every
// lane.
fn texel(t: vec2<i32>) -> vec3<u32> {
    let size = params.src.xy;
    let s = t - params.src.zw;
    let inside = all(s >= vec2<i32>(0)) && all(s < size);
    let c = bytes(textureLoad(frame, clamp(s, vec2<i32>(0), size - 1), 0));
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

// First pass, into `picture` (the frame's size): texel `position` as the picture shows it.
@fragment
fn fs_picture(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let t = vec2<i32>(floor(position.xy));
    if DEFLICKER {
        return vec4<f32>(vec3<f32>(flickerless(t, u32(params.misc.x))) / 255.0, 1.0);
    }
    return vec4<f32>(vec3<f32>(texel(t)) / 255.0, 1.0);
}

// Texel t of the picture, read clamped to the frame: sharp bilinear reads the texel before
// the first and the one after the last only with weight 0 (layout::sharp_axis), nearest
// never.
fn fetch(t: vec2<i32>) -> vec3<u32> {
    return bytes(textureLoad(picture, clamp(t, vec2<i32>(0), params.src.xy - 1), 0));
}

// The texel and weight for pixel p of the rectangle along one axis (0: x, 1: y).
fn axis(p: i32, which: i32) -> vec2<i32> {
    let v = textureLoad(axes, vec2<i32>(p, which), 0).x;
    return vec2<i32>(v >> 9u, v & 511);
}

// Second pass, into the target.
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
