//! The GS's pixel rules (pixel_rules/cases.rs) and render-scale rules (scale_rules/cases.rs) on
//! the software renderer. piney-gs-wgpu's tests/reference_cases.rs runs the same cases on the
//! wgpu renderer.

#[path = "pixel_rules/cases.rs"]
mod pixel_rules;
#[path = "scale_rules/cases.rs"]
mod scale_rules;

type R = piney_gs::SoftwareRenderer;

fn new_renderer(scale: u32) -> R {
    piney_gs::SoftwareRenderer::with_scale(scale)
}
