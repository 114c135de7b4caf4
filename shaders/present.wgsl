// piney's presenter: shows an emulated frame in a window (or an offscreen target).
//
// The frame is drawn 4:3 into `rect` (the letterbox, black around it), nearest neighbour:
// target pixel p (relative to the rectangle) shows texel floor(p * size / rect_size). The
// display offset then moves the picture (black where it left), and the optional frame-mode
// deflicker mixes each line with the line above. Everything is integer arithmetic on an
// Rgba8Uint texture read with textureLoad, so the picture is exact and equals the CPU
// reference (piney_frontend::reference) bit for bit on any backend.

struct Params {
    // The picture's rectangle in the target, in pixels: x, y, width, height.
    rect: vec4<i32>,
    // The frame's width and height in texels, then the display offset in texels (x, y).
    src: vec4<i32>,
    // x: the deflicker alpha (0 = off, else 1..255: alpha/255 of the line above); yzw unused.
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

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let black = vec4<f32>(0.0, 0.0, 0.0, 1.0);
    // The pixel's top-left corner, relative to the picture's rectangle.
    let p = vec2<i32>(floor(position.xy)) - params.rect.xy;
    if any(p < vec2<i32>(0)) || any(p >= params.rect.zw) {
        return black;
    }
    let size = params.src.xy;
    let s = (p * size) / params.rect.zw - params.src.zw;
    if any(s < vec2<i32>(0)) || any(s >= size) {
        return black;
    }
    var c = textureLoad(frame, s, 0).rgb;
    let alpha = u32(params.misc.x);
    if alpha != 0u && s.y > 0 {
        let up = textureLoad(frame, s - vec2<i32>(0, 1), 0).rgb;
        // The PCRTC's merge, rounded to nearest.
        c = (up * alpha + c * (255u - alpha) + vec3<u32>(127u)) / 255u;
    }
    return vec4<f32>(vec3<f32>(c) / 255.0, 1.0);
}
