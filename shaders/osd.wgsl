// piney's on-screen display: the overlay image (messages, the performance lines) blended over
// the window's top left corner at an integer scale, nearest neighbour. Straight alpha; the
// pipeline blends src * a + dst * (1 - a).

struct Params {
    // The overlay's place in the target (x, y), its scale, unused.
    at: vec4<i32>,
    // Its size in texels (width, height), unused x2.
    size: vec4<i32>,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var overlay: texture_2d<f32>;

// One triangle that covers the whole target: (-1, -1), (3, -1), (-1, 3).
@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i32(index & 1u) * 4 - 1);
    let y = f32(i32(index >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    let p = vec2<i32>(floor(position.xy)) - params.at.xy;
    let q = p / max(params.at.z, 1);
    if any(p < vec2<i32>(0)) || any(q >= params.size.xy) {
        discard;
    }
    return textureLoad(overlay, q, 0);
}
