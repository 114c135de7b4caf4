//! The software renderer's specialised paths against its general path: random scenes
//! (crate::scenes) drawn both ways give the same local memory, word for word, and the same
//! readbacks; every specialisation is taken by some draw. The specialised paths run in the
//! instruction set the processor has (crate::sw_fast::Isa) and in the baseline one.

use crate::scenes::{first_difference, replay, scene_with};
use crate::sw::SoftwareRenderer;

#[test]
fn fast_paths_equal_the_general_path_on_random_scenes() {
    let mut used = vec![0u64; crate::sw_fast::KEYS];
    let mut general_draws = 0;
    for seed in 0..200 {
        // Every other scene reuses its textures, so that the texture cache is tested by
        // uploads, copies and draws changing what it decoded.
        let cmds = scene_with(seed, 60, seed % 4 == 0, seed % 2 == 1);
        let mut reference = SoftwareRenderer::general_only(1);
        let want = replay(&mut reference, &cmds);
        // Every other four scenes in the baseline instruction set (both kinds of scene each).
        let (mut fast, isa) = if (seed / 4) % 2 == 1 {
            (SoftwareRenderer::new().baseline_isa(), "baseline")
        } else {
            (SoftwareRenderer::new(), "detected")
        };
        let got = replay(&mut fast, &cmds);
        assert_eq!(want, got, "scene {seed} ({isa} ISA): readbacks differ");
        if let Some(d) = first_difference(
            std::slice::from_ref(reference.mem()),
            std::slice::from_ref(fast.mem()),
        ) {
            panic!("scene {seed} ({isa} ISA): {d}");
        }
        let st = fast.stats();
        for (u, n) in used.iter_mut().zip(&st.fast_keys) {
            *u += n;
        }
        general_draws += st.general_draws;
    }
    // Every specialisation drew something; the general path still took the draws the fast
    // paths leave to it (lines, points, mipmaps, feedback).
    let unused: Vec<usize> = (0..used.len()).filter(|&k| used[k] == 0).collect();
    assert!(unused.is_empty(), "keys never taken: {unused:?} ({used:?})");
    assert!(general_draws > 0);
}

/// A texture drawn into after it was sampled (render to texture) is sampled again with the new
/// texels: the texture cache follows draws, not only uploads. Texture: 16 x 16 PSMCT32 at block
/// 0x100 (page 8); the frame at page 0. Expected values by hand: DECAL with TCC takes the texel
/// as it is.
#[test]
fn a_texture_drawn_into_is_sampled_anew() {
    // On one thread, and on workers with every batch shared (a draw sampling what an earlier
    // draw of the same batch wrote must end the batch).
    for threads in [1, 2, 4] {
        texture_drawn_into(
            SoftwareRenderer::new()
                .with_threads(threads)
                .share_every_batch(),
        );
    }
}

fn texture_drawn_into(r: SoftwareRenderer) {
    use crate::gs::{Gs, reg};
    use crate::psm::Psm;
    let mut g = Gs::new(r);
    let frame = |g: &mut Gs<SoftwareRenderer>, fbp: u64| {
        g.write_reg(reg::FRAME_1, fbp | 1 << 16).unwrap();
    };
    g.write_reg(reg::ZBUF_1, 1 << 32).unwrap();
    g.write_reg(reg::SCISSOR_1, 63 << 16 | 63 << 48).unwrap();
    g.write_reg(reg::TEST_1, 0).unwrap();
    g.write_reg(reg::XYOFFSET_1, 0).unwrap();
    let solid = |g: &mut Gs<SoftwareRenderer>, colour: u64| {
        g.write_reg(reg::PRIM, 6).unwrap();
        g.write_reg(reg::RGBAQ, colour).unwrap();
        g.write_reg(reg::XYZ2, 0).unwrap();
        g.write_reg(reg::XYZ2, (16 * 16) | ((16 * 16) << 16))
            .unwrap();
    };
    let textured = |g: &mut Gs<SoftwareRenderer>| {
        // TBP 0x100, TBW 1, PSMCT32, 16 x 16, TCC, DECAL; nearest; UV one texel a pixel.
        g.write_reg(
            reg::TEX0_1,
            0x100 | 1 << 14 | 4 << 26 | 4 << 30 | 1 << 34 | 1 << 35,
        )
        .unwrap();
        g.write_reg(reg::TEX1_1, 0).unwrap();
        g.write_reg(reg::PRIM, 6 | 1 << 4 | 1 << 8).unwrap();
        g.write_reg(reg::UV, 0).unwrap();
        g.write_reg(reg::XYZ2, 0).unwrap();
        g.write_reg(reg::UV, (16 * 16) | ((16 * 16) << 16)).unwrap();
        g.write_reg(reg::XYZ2, (16 * 16) | ((16 * 16) << 16))
            .unwrap();
    };
    // The texture's page filled with 0x11223344, sampled into the frame.
    frame(&mut g, 8);
    solid(&mut g, 0x1122_3344);
    frame(&mut g, 0);
    textured(&mut g);
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct32, 5, 5, 0, 1),
        0x1122_3344
    );
    // Drawn into again, then sampled again.
    frame(&mut g, 8);
    solid(&mut g, 0x5566_7788);
    frame(&mut g, 0);
    textured(&mut g);
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct32, 5, 5, 0, 1),
        0x5566_7788
    );
    let st = g.renderer().stats();
    assert_eq!(st.general_draws, 0, "{st:?}");
}

/// An indexed texture sampled again after a new CLUT load takes the new colours. Texture: 16 x
/// 16 PSMT8 at block 0x200, every index 3; CLUT: PSMCT32 at block 0x300 (CSM1: entry 3 at
/// (3, 0)); DECAL with TCC.
#[test]
fn an_indexed_texture_follows_a_new_clut() {
    use crate::gs::{Gs, reg};
    use crate::psm::Psm;
    let mut g = Gs::new(SoftwareRenderer::new());
    let upload =
        |g: &mut Gs<SoftwareRenderer>, bp: u64, psm: Psm, w: u64, h: u64, data: &[u128]| {
            g.write_reg(
                reg::BITBLTBUF,
                bp << 32 | 1 << 48 | (psm.code() as u64) << 56,
            )
            .unwrap();
            g.write_reg(reg::TRXPOS, 0).unwrap();
            g.write_reg(reg::TRXREG, w | h << 32).unwrap();
            g.write_reg(reg::TRXDIR, 0).unwrap();
            g.write_image(data);
        };
    upload(
        &mut g,
        0x200,
        Psm::T8,
        16,
        16,
        &[0x0303_0303_0303_0303_0303_0303_0303_0303; 16],
    );
    g.write_reg(reg::FRAME_1, 1 << 16).unwrap();
    g.write_reg(reg::ZBUF_1, 1 << 32).unwrap();
    g.write_reg(reg::SCISSOR_1, 63 << 16 | 63 << 48).unwrap();
    g.write_reg(reg::TEST_1, 0).unwrap();
    g.write_reg(reg::XYOFFSET_1, 0).unwrap();
    let draw = |g: &mut Gs<SoftwareRenderer>| {
        // TBP 0x200, TBW 1 (PSMT8 pages are 128 wide; BW 2 is one page), 16 x 16, TCC, DECAL,
        // CBP 0x300, CPSM 32, CLD 1 (load now).
        g.write_reg(
            reg::TEX0_1,
            0x200
                | 2 << 14
                | 0x13 << 20
                | 4 << 26
                | 4 << 30
                | 1 << 34
                | 1 << 35
                | 0x300 << 37
                | 1 << 61,
        )
        .unwrap();
        g.write_reg(reg::PRIM, 6 | 1 << 4 | 1 << 8).unwrap();
        g.write_reg(reg::UV, 0).unwrap();
        g.write_reg(reg::XYZ2, 0).unwrap();
        g.write_reg(reg::UV, (16 * 16) | ((16 * 16) << 16)).unwrap();
        g.write_reg(reg::XYZ2, (16 * 16) | ((16 * 16) << 16))
            .unwrap();
    };
    let clut = |g: &mut Gs<SoftwareRenderer>, c: u32| {
        let words = [0, 0, 0, c].map(|w| w as u128);
        upload(
            g,
            0x300,
            Psm::Ct32,
            4,
            1,
            &[words[0] | words[1] << 32 | words[2] << 64 | words[3] << 96],
        );
    };
    clut(&mut g, 0x8011_2233);
    draw(&mut g);
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct32, 7, 7, 0, 1),
        0x8011_2233
    );
    clut(&mut g, 0x8044_5566);
    draw(&mut g);
    assert_eq!(
        g.local_memory().read_pixel(Psm::Ct32, 7, 7, 0, 1),
        0x8044_5566
    );
    assert_eq!(g.renderer().stats().general_draws, 0);
}

/// The same scenes drawn by 1, 2, 3 and 4 threads (every batch handed to the workers): the
/// same memory, word for word, and the same readbacks.
#[test]
fn any_number_of_threads_draws_the_same_pixels() {
    let mut shared = 0;
    for seed in 300..360 {
        let cmds = scene_with(seed, 60, seed % 4 == 0, seed % 2 == 1);
        let mut one = SoftwareRenderer::new();
        let want = replay(&mut one, &cmds);
        for threads in [2, 3, 4] {
            let mut many = SoftwareRenderer::new()
                .with_threads(threads)
                .share_every_batch();
            assert_eq!(many.threads(), threads);
            let got = replay(&mut many, &cmds);
            assert_eq!(
                want, got,
                "scene {seed}, {threads} threads: readbacks differ"
            );
            if let Some(d) = first_difference(
                std::slice::from_ref(one.mem()),
                std::slice::from_ref(many.mem()),
            ) {
                panic!("scene {seed}, {threads} threads: {d}");
            }
            shared += many.stats().shared_batches;
        }
    }
    assert!(shared > 100, "only {shared} batches went to the workers");
}
