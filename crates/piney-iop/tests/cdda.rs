//! CD-DA: tests/iop/cdda.irx (after sdload, which loads rom0:LIBSD) with a CD of one data and
//! two audio tracks in the drive: the table of contents, sceCdReadCDDA's three datapatterns,
//! and track 3's samples through the SPU2's sound data input to its output.

use std::path::PathBuf;

use piney_iop::disc::{CDDA_SECTOR, Disc, Media, Track};
use piney_iop::{IOP_CLOCK_HZ, Iop};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The module's pattern: sample n of the audio (left; right is -left / 2).
fn sample(n: u32) -> i16 {
    ((n.wrapping_mul(97)) % 20001) as i16 - 10000
}

/// Track 1 data 0..250 (sector s's bytes all `s as u8`, an ISO-like "CD001" at 16), tracks 2
/// and 3 audio 250..650 and 650..750.
struct ThreeTracks;

const LEAD_OUT: u64 = 750;

impl Disc for ThreeTracks {
    fn sectors(&self) -> u64 {
        250
    }
    fn media(&self) -> Media {
        Media::Cd
    }
    fn read(&mut self, lba: u64, buf: &mut [u8]) -> Result<(), String> {
        for (i, s) in buf.chunks_mut(2048).enumerate() {
            let lsn = lba + i as u64;
            if lsn >= 250 {
                return Err(format!("sector {lsn} is past the data track"));
            }
            s.fill(lsn as u8);
            if lsn == 16 {
                s[..6].copy_from_slice(b"\x01CD001");
            }
        }
        Ok(())
    }
    fn tracks(&self) -> Vec<Track> {
        [(1, false, 0), (2, true, 250), (3, true, 650)]
            .map(|(number, audio, start)| Track {
                number,
                audio,
                start,
            })
            .to_vec()
    }
    fn lead_out(&self) -> u64 {
        LEAD_OUT
    }
    fn read_cdda(&mut self, lsn: u64, buf: &mut [u8]) -> Result<(), String> {
        for (i, s) in buf.chunks_mut(CDDA_SECTOR).enumerate() {
            let lsn = lsn + i as u64;
            if !(250..LEAD_OUT).contains(&lsn) {
                return Err(format!("sector {lsn}: no whole data sectors in this image"));
            }
            for k in 0..588 {
                let l = sample(lsn as u32 * 588 + k as u32);
                let r = -l / 2;
                s[4 * k..4 * k + 2].copy_from_slice(&l.to_le_bytes());
                s[4 * k + 2..4 * k + 4].copy_from_slice(&r.to_le_bytes());
            }
        }
        Ok(())
    }
}

/// x through the chain the module sets up (piney-spu2's mixer, hand-followed): core 0's input
/// times BVOL 0x7fff, core 0's master volume (register 0x3fff: level 0x7ffe), core 1's
/// external input volume AVOL 0x7fff, core 1's master volume 0x7ffe; each step (x * v) >> 15.
fn through_the_spu2(x: i16) -> i16 {
    let v = |x: i32, v: i32| (x * v) >> 15;
    v(v(v(v(i32::from(x), 0x7fff), 0x7ffe), 0x7fff), 0x7ffe) as i16
}

#[test]
fn a_cd_with_audio_tracks_plays_through_the_spu2() {
    let mut iop = Iop::new();
    iop.insert_disc(Some(Box::new(ThreeTracks)));
    for n in ["sdload", "cdda"] {
        let image = std::fs::read(root().join(format!("tests/iop/{n}.irx"))).unwrap();
        iop.queue_module(n, image, &[]);
    }
    let done = iop
        .run_bare(10 * IOP_CLOCK_HZ)
        .unwrap_or_else(|e| panic!("cdda: {e}"));
    let out = String::from_utf8_lossy(&iop.take_output()).into_owned();
    assert!(done, "cdda did not finish; output: {out}");
    let want = ["sdload", "cdda"]
        .map(|n| std::fs::read_to_string(root().join(format!("tests/iop/{n}.stdout"))).unwrap())
        .concat();
    assert_eq!(out, want);

    // The SPU2's output holds track 3's first 4608 frames (from sector 650), in order, each
    // through the volumes.
    iop.spu2_sync();
    let audio = &iop.bus.hw.audio;
    let expect: Vec<i16> = (0..4608u32)
        .flat_map(|i| {
            let l = sample(650 * 588 + i);
            [through_the_spu2(l), through_the_spu2(-l / 2)]
        })
        .collect();
    let found = audio
        .windows(expect.len())
        .position(|w| w == expect.as_slice());
    assert!(
        found.is_some(),
        "track 3's samples are not at the SPU2's output ({} samples made; first expected {:?})",
        audio.len() / 2,
        &expect[..4]
    );
}
